import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { after, describe, it } from 'mocha';
import { createCpuPool } from '../../activities/cpu/pool';

const rules = [{ id: 'no-email', description: 'Do not include email addresses.' }];
const input = (output: string) => ({ messages: [{ role: 'user', content: 'Where is my order?' }], output, rules });

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

describe('the worker CPU pool (activities/cpu/pool.ts)', () => {
  const pool = createCpuPool({ threads: 1, budgetMs: 60_000 });
  const tight = createCpuPool({ threads: 1, budgetMs: 1 });
  after(async () => {
    await Promise.all([pool.close(), tight.close()]);
  });

  it('grades on a thread: the event loop keeps turning while a megabyte is graded', async () => {
    const { turns, result } = await loopTurnsDuring(pool.run({ task: 'gradeBuiltin', input: input(`${'word '.repeat(200_000)} write to help@example.com`) }));
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
});
