import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { after, describe, it } from 'mocha';
import { createCpuPool } from '../../domain/cpu/pool';
import { fitTagModel, readTagTrainingInputs, tagTrainingBuffers, type TagExample } from '../../domain/tags/model';
import { seeded } from '../../domain/tags/softmax';

const rules = [{ id: 'no-email', description: 'Do not include email addresses.' }];
const input = (output: string) => ({ messages: [{ role: 'user', content: 'Where is my order?' }], output, rules });

/** Cases of three tags: vectors along a direction per tag plus noise (float32, as embedders give them), a few words per tag. */
function tagCases(n: number): TagExample[] {
  const random = seeded(5);
  const words = {
    card: 'my card has not arrived',
    refund: 'refund the double charge',
    login: 'cannot log in to my account',
  };
  const tags = Object.keys(words) as (keyof typeof words)[];
  return Array.from({ length: n }, (_, i) => {
    const tag = tags[i % tags.length];
    const vector = Array.from(
      Float32Array.from({ length: 12 }, (_, d) => (d === i % tags.length ? 0.5 : 0) + random() - 0.5),
    );
    return { vector, text: `${words[tag]} ${random() < 0.5 ? 'today' : 'again'}`, tags: [tag] };
  });
}

/** How many times the event loop turned while `work` ran: zero if the work held the loop. */
async function loopTurnsDuring<T>(work: Promise<T>): Promise<{ turns: number; result: PromiseSettledResult<T> }> {
  let turns = 0;
  let done = false;
  const spin = () => {
    if (done) return;
    turns += 1;
    setImmediate(spin);
  };
  setImmediate(spin);
  const [result] = await Promise.allSettled([work]);
  done = true;
  return { turns, result };
}

describe('the worker CPU pool (domain/cpu/pool.ts)', () => {
  const pool = createCpuPool({ threads: 1, budgetMs: 60_000 });
  const tight = createCpuPool({ threads: 1, budgetMs: 1 });
  after(async () => {
    await Promise.all([pool.close(), tight.close()]);
  });

  it('grades on a thread: the event loop keeps turning while a megabyte is graded', async () => {
    const { turns, result } = await loopTurnsDuring(
      pool.run({ task: 'gradeBuiltin', input: input(`${'word '.repeat(200_000)} write to help@example.com`) }),
    );
    assert.equal(result.status, 'fulfilled');
    assert.equal((result as PromiseFulfilledResult<any>).value.rules[0].outcome, 'fail');
    assert.ok(turns > 0, 'the event loop was held while grading');
  });

  it('stops a task past its budget with InputTooCostly, not retried, and the pool keeps working', async () => {
    await assert.rejects(tight.run({ task: 'gradeBuiltin', input: input('a'.repeat(1_000_000)) }), (err: unknown) => {
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, 'InputTooCostly');
      assert.equal(err.nonRetryable, true);
      assert.match(err.message, /budget/);
      return true;
    });
    const again = await pool.run({ task: 'redactTexts', input: { texts: ['mail me at jo@example.com'] } });
    assert.equal(again[0].text, 'mail me at [EMAIL]');
  });

  it('a cancelled task rejects at once and its thread is replaced; tasks queued behind it run', async () => {
    const cancel = new AbortController();
    const long = pool.run({ task: 'gradeBuiltin', input: input('word '.repeat(200_000)), signal: cancel.signal });
    const queued = pool.run({ task: 'redactTexts', input: { texts: ['call +44 20 7946 0958'] } });
    setTimeout(() => cancel.abort(), 5);
    await assert.rejects(long, (err: Error) => err.name === 'AbortError');
    assert.equal((await queued)[0].text, 'call [PHONE]');
  });

  it('fits a tag model on a thread exactly as in this process, its vectors moved there, not copied', async () => {
    const english = {
      model: 'encoder',
      embed: async (texts: string[]) =>
        texts.map((t) => Array.from(Float32Array.from({ length: 4 }, (_, d) => (t.length % 4 === d ? 1 : 0)))),
    };
    const embedNames = async (texts: string[]) =>
      texts.map((t) => Array.from(Float32Array.from({ length: 12 }, (_, d) => (t.length % 12 === d ? 1 : 0))));
    const read = () => readTagTrainingInputs(tagCases(400), { now: 3, embedNames, english });
    const here = await fitTagModel((await read())!);
    assert.ok(here.holdoutAccuracy !== null, 'enough cases to fit the temperature on held-out ones');
    const inputs = (await read())!;
    const { turns, result } = await loopTurnsDuring(
      pool.run({ task: 'trainTags', input: inputs, transfer: tagTrainingBuffers(inputs) }),
    );
    assert.equal(result.status, 'fulfilled');
    assert.deepEqual((result as PromiseFulfilledResult<any>).value, here);
    assert.equal(inputs.vectors.data.byteLength, 0, 'the case vectors were moved to the thread');
    assert.equal(inputs.english!.data.byteLength, 0, 'the English vectors were moved to the thread');
    assert.ok(turns > 0, 'the event loop was held while fitting');
  });

  it('stops a tag training past its budget and names the setting that raises it', async () => {
    const inputs = (await readTagTrainingInputs(tagCases(400), { now: 3 }))!;
    await assert.rejects(tight.run({ task: 'trainTags', input: inputs }), (err: unknown) => {
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, 'InputTooCostly');
      assert.match(err.message, /tag model took longer than its budget .* WORKER_TAG_TRAINING_BUDGET_MS/);
      return true;
    });
  });
});
