import { strict as assert } from 'node:assert';
import { after, describe, it } from 'mocha';
import { contentTokens } from '../../domain/ask/sentences';
import { CpuQueueFull, createCpuPool } from '../../domain/cpu/pool';
import { boundConversation, parseConversation, READ } from '../../domain/summary/conversation';
import { RANKED, summarizeLocal, textRank, units, type Unit } from '../../domain/summary/local-engine';
import { readUpload } from '../../domain/contracts/upload-reading';
import { readBody } from '../../domain/contracts/read-body';
import { supportCase } from '../helpers/factories';

/** Random three-letter words, the heaviest summary: no sentence end in 20,000 characters. */
function randomWords(chars: number, seed: number): string {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const letter = () => String.fromCharCode(97 + Math.floor(next() * 26));
  const words: string[] = [];
  for (let n = 0; n < chars; n += 4) words.push(letter() + letter() + letter());
  return words.join(' ');
}

/** TextRank as it was written first (a map per sentence, every ordered pair): the reference the faster one must equal. */
function referenceTextRank(list: Unit[], damping = 0.85): number[] {
  const n = list.length;
  const df = new Map<string, number>();
  for (const u of list) for (const t of new Set(u.tokens)) df.set(t, (df.get(t) ?? 0) + 1);
  const vectors = list.map((u) => {
    const tf = new Map<string, number>();
    for (const t of u.tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    const v = new Map<string, number>();
    for (const [t, f] of tf) v.set(t, f * Math.log(1 + n / df.get(t)!));
    const norm = Math.sqrt([...v.values()].reduce((a, x) => a + x * x, 0)) || 1;
    for (const [t, x] of v) v.set(t, x / norm);
    return v;
  });
  const sim = vectors.map((a, i) =>
    vectors.map((b, j) => {
      if (i === j) return 0;
      let s = 0;
      for (const [t, x] of a) s += x * (b.get(t) ?? 0);
      return s;
    }),
  );
  const out = sim.map((row) => row.reduce((a, x) => a + x, 0));
  let rank = new Array<number>(n).fill(1 / n);
  for (let iter = 0; iter < 50; iter++) {
    const next = new Array<number>(n).fill((1 - damping) / n);
    for (let j = 0; j < n; j++) {
      if (out[j] === 0) for (let i = 0; i < n; i++) next[i] += (damping * rank[j]) / n;
      else for (let i = 0; i < n; i++) if (sim[j][i] > 0) next[i] += (damping * rank[j] * sim[j][i]) / out[j];
    }
    const delta = next.reduce((a, x, i) => a + Math.abs(x - rank[i]), 0);
    rank = next;
    if (delta < 1e-6) break;
  }
  const max = Math.max(...rank);
  return rank.map((r) => r / max);
}

describe('the built-in summary has a bounded cost (domain/summary)', () => {
  const heavy = Array.from({ length: 240 }, (_, i) => randomWords(20_000, i + 1));

  it('reads at most the first and last characters of a conversation of megabytes', () => {
    const bounded = boundConversation({ subject: 'Refund', comments: heavy });
    const blocks = [bounded.description ?? '', ...(bounded.comments ?? [])];
    assert.ok(blocks.reduce((a, b) => a + b.length, 0) <= READ.headChars + READ.tailChars);
    assert.equal(bounded.subject, 'Refund');
    assert.equal(bounded.comments!.at(-1), heavy.at(-1), 'the last message is kept whole');
  });

  it('leaves a conversation of a normal size as it is', () => {
    const c = { subject: 'Printer', description: 'It jams.', comments: ['Try the tray.', 'Fixed, thanks.'] };
    assert.equal(boundConversation(c), c);
  });

  it('ranks at most RANKED sentences, each at most 1,000 characters and 100 content words', () => {
    const transcript = Array.from(
      { length: 5000 },
      (_, i) => `${i % 2 ? 'Agent' : 'Customer'}: ${randomWords(600, i)}.`,
    );
    for (const comments of [heavy, transcript, [transcript.join('\n')]]) {
      const list = units(parseConversation(boundConversation({ comments })).turns);
      assert.ok(list.length <= RANKED.headSentences + RANKED.tailSentences, `${list.length} sentences`);
      for (const u of list) {
        assert.ok(u.text.length <= RANKED.sentenceChars, `${u.text.length} characters`);
        assert.ok(u.tokens.length <= RANKED.sentenceTokens);
      }
    }
  });

  it('cuts a sentence of 20,000 characters at a word, with an ellipsis', () => {
    const [u] = units([{ text: heavy[0], part: 'comment' }]);
    assert.ok(u.text.endsWith('…'));
    assert.ok(heavy[0].startsWith(u.text.slice(0, -1)));
    assert.match(u.text, /[a-z]{3}…$/);
  });

  it('still summarizes the heaviest valid request (240 comments of 20,000 characters)', () => {
    const draft = summarizeLocal({ conversation: { comments: heavy }, language: 'en' });
    assert.ok(draft.parts.length > 0);
    assert.ok(JSON.stringify(draft).length < 10_000);
  });

  it('ranks exactly as the first TextRank did', () => {
    const sentences = [
      'My printer jams every time I print a double-sided page.',
      'Have you tried cleaning the rollers of the printer?',
      'Yes, I cleaned the rollers twice and the page still jams.',
      'Then please update the printer driver from our site.',
      'The driver update fixed the double-sided printing, thanks.',
      'Great, I will close the ticket.',
    ];
    const list = sentences.map((text, i) => ({
      turn: i,
      index: 0,
      order: i,
      text,
      tokens: contentTokens(text),
      centrality: 0,
      score: 0,
    }));
    assert.deepEqual(textRank(list), referenceTextRank(list));
  });
});

describe("the API's CPU threads (domain/cpu/pool.ts, tasks: 'read')", () => {
  const pool = createCpuPool({ threads: 1, budgetMs: 60_000, tasks: 'read', maxQueuedPerTenant: 2 });
  after(() => pool.close());
  const language = (tenant: string, message: string) =>
    pool.run({ task: 'messageLanguage', input: { message }, tenant }).then(() => `${tenant}:${message}`);

  it('summarizes on a thread and tells the language there', async () => {
    const { language: lang, draft } = await pool.run({
      task: 'summarizeLocally',
      input: { conversation: { subject: 'Impressora', description: 'A impressora não imprime e eu não sei porquê.' } },
      tenant: 't',
    });
    assert.equal(lang, 'pt');
    assert.equal(draft.parts[0].label, 'Problema');
  });

  it('reads a large upload and a large read body on a thread, as the event loop would', async () => {
    const body = JSON.stringify({ data: [supportCase({ id: 'one' }), supportCase({ id: 'two' })] });
    const input = { bytes: Buffer.from(body), kind: 'casesUpload' as const, maxItemBytes: 1536 * 1024 };
    const reading = await pool.run({
      task: 'readUploadBody',
      input: { ...input, bytes: Buffer.from(body) },
      tenant: 't',
    });
    assert.deepEqual(reading, readUpload(input));
    const summary = { subject: 'Printer', comments: [{ comment: 'It prints blank pages.' }] };
    const read = await pool.run({
      task: 'readRequestBody',
      input: { bytes: Buffer.from(JSON.stringify(summary)), operation: 'summarize' },
      tenant: 't',
    });
    assert.deepEqual(read, readBody({ bytes: Buffer.from(JSON.stringify(summary)), operation: 'summarize' }));
  });

  it('gives a freed thread to the waiting tenant whose last task started longest ago', async () => {
    const done: string[] = [];
    const track = (p: Promise<string>) => p.then((x) => void done.push(x));
    await Promise.all([
      track(language('a', 'first')),
      track(language('a', 'second')),
      track(language('a', 'third')),
      track(language('b', 'first')),
    ]);
    assert.deepEqual(done, ['a:first', 'b:first', 'a:second', 'a:third']);
  });

  it("refuses a task beyond a tenant's waiting bound, and only that tenant's", async () => {
    const running = language('a', 'runs');
    const queued = [language('a', 'waits'), language('a', 'waits too')];
    await assert.rejects(language('a', 'one too many'), CpuQueueFull);
    assert.equal(await language('b', 'waits'), 'b:waits');
    await Promise.all([running, ...queued]);
  });

  it('a task aborted while it waits leaves the line at once', async () => {
    const cancel = new AbortController();
    const running = language('a', 'runs');
    const waiting = pool.run({ task: 'messageLanguage', input: { message: 'x' }, tenant: 'a', signal: cancel.signal });
    cancel.abort();
    await assert.rejects(waiting, (err: Error) => err.name === 'AbortError');
    await running;
  });
});
