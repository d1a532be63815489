import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import {
  dataBudget,
  estimateTokens,
  fitJson,
  fitTokens,
  fitTokensFromEnd,
  headAndTail,
} from '../../domain/models/prompt-budget';
import { answerMessages } from '../../domain/ask/model-engine';
import { TokenMeter } from '../../domain/models/token-meter';
import { type TokenUsageRow, utcDay } from '../../domain/weaviate/token-usage';

describe('prompt budget', () => {
  it('estimates letters low, digits and punctuation at one, non-ASCII at one, astral characters at four', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('abcdefghij'), 3);
    assert.equal(estimateTokens('1234'), 4);
    assert.equal(estimateTokens('{"a":1}'), 7);
    assert.equal(estimateTokens('ééé'), 3);
    assert.equal(estimateTokens('😀😀'), 8);
  });

  it('cuts to a prefix or a suffix within the budget, never inside a surrogate pair', () => {
    const text = 'ab😀cd😀ef';
    for (let tokens = 0; tokens <= 12; tokens++) {
      const head = fitTokens(text, tokens);
      const tail = fitTokensFromEnd(text, tokens);
      assert.ok(text.startsWith(head) && text.endsWith(tail));
      assert.ok(estimateTokens(head) <= tokens && estimateTokens(tail) <= tokens, `${tokens}`);
      for (const part of [head, tail]) assert.doesNotMatch(part, /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
    assert.equal(fitTokens(text, 100), text);
  });

  it('keeps the start and the end of a long text, within the budget', () => {
    const long = `START ${'word '.repeat(10_000)}END`;
    const cut = headAndTail(long, 200);
    assert.ok(estimateTokens(cut) <= 200);
    assert.match(cut, /^START /);
    assert.match(cut, /END$/);
    assert.match(cut, / \[…\] /);
    assert.equal(headAndTail('short', 200), 'short');
  });

  it('fits JSON with its escapes: a text of newlines and quotes costs more escaped than raw', () => {
    const text = '"\n'.repeat(5000);
    const json = fitJson(500, (room) => ({ message: headAndTail(text, room) }));
    assert.ok(estimateTokens(json) <= 500, `${estimateTokens(json)}`);
    assert.ok(JSON.parse(json).message.length > 0);
  });

  it('leaves the data what the window has after the reply, the system message and the framing', () => {
    assert.equal(dataBudget({ contextTokens: 1000, maxTokens: 300, system: 'abcdefghij' }), 1000 - 300 - 3 - 16);
    assert.equal(dataBudget({ contextTokens: 100, maxTokens: 300, system: '' }), 0);
  });

  it("fits an ask's sources and conversation into its budget, sharing the room between the sources", () => {
    const source = (n: number) => ({
      kind: 'article' as const,
      id: `a${n}`,
      title: `T${n}`,
      url: 'https://example.com',
      passages: ['x '.repeat(5000)],
      score: 1,
    });
    const history = Array.from({ length: 6 }, (_, i) => ({
      question: `q${i}`,
      standalone: `q${i}`,
      answer: 'answer '.repeat(500),
      answerId: `id${i}`,
    }));
    const [, user] = answerMessages({
      question: 'How?',
      history,
      sources: [source(1), source(2)] as any,
      language: 'en',
      tokens: 1200,
    });
    assert.ok(estimateTokens(user.content) <= 1200);
    const data = JSON.parse(user.content);
    assert.equal(data.conversation.length, 4, 'the latest four turns');
    assert.equal(data.sources[0].text.length, data.sources[1].text.length);
  });
});

describe('token meter', () => {
  /** The shared store's contract, in memory: each process's rows by key, replaced on publish. */
  function memoryStore() {
    const objects = new Map<string, TokenUsageRow & { instance: string }>();
    return {
      objects,
      async publish(o: { instance: string; rows: TokenUsageRow[] }) {
        for (const r of o.rows)
          objects.set(JSON.stringify([o.instance, r.day, r.tenant, r.capability, r.model]), {
            ...r,
            instance: o.instance,
          });
      },
      async rows(o: { day: number; exceptInstance?: string }) {
        return [...objects.values()].filter((r) => r.day === o.day && r.instance !== o.exceptInstance);
      },
    };
  }
  const call = (tenant: string, promptTokens: number, completionTokens: number) => ({
    tenant,
    capability: 'summary' as const,
    model: 'm',
    promptTokens,
    completionTokens,
    ms: 1,
  });

  it("counts a tenant's tokens of the day over every process, behind by one sync", async () => {
    const store = memoryStore();
    let now = Date.UTC(2026, 10, 25, 12);
    const a = new TokenMeter({ store, now: () => now });
    const b = new TokenMeter({ store, now: () => now });
    a.record(call('t1', 100, 20));
    a.record(call('t1', 10, 2));
    b.record(call('t1', 5, 5));
    b.record(call('t2', 7, 0));
    assert.equal(a.spentToday('t1'), 132);
    await b.sync();
    await a.sync();
    assert.equal(a.spentToday('t1'), 142);
    assert.equal(a.spentToday('t2'), 7);
    assert.deepEqual(a.rows(), [
      {
        day: utcDay(Date.UTC(2026, 10, 25)),
        tenant: 't1',
        capability: 'summary',
        model: 'm',
        promptTokens: 110,
        completionTokens: 22,
        calls: 2,
      },
    ]);
    // A new UTC day starts from nothing.
    now += 12 * 3600_000;
    assert.equal(a.spentToday('t1'), 0);
  });

  it('keeps counting while the store fails, and stores the totals once it can', async () => {
    const store = memoryStore();
    let failing = true;
    const warnings: string[] = [];
    const meter = new TokenMeter({
      store: {
        publish: async (o) => {
          if (failing) throw new Error('down');
          return store.publish(o);
        },
        rows: store.rows,
      },
      warn: (m) => warnings.push(m),
    });
    meter.record(call('t1', 1, 1));
    await meter.sync();
    assert.equal(store.objects.size, 0);
    assert.equal(warnings.length, 1);
    failing = false;
    meter.record(call('t1', 1, 1));
    await meter.sync();
    assert.equal([...store.objects.values()][0].calls, 2);
  });
});
