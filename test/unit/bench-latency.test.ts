/** The latency benchmark's pure helpers: Server-Timing parsing, workflow history phases, pooling. */
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { articlesUpload } from '../../domain/contracts/article';
import { checkUploadItems } from '../../domain/contracts/upload';
import { shuffledQueries, stackFaqArticle } from '../../bench/lib/latency-corpus';
import { pooledStats, ratio, runRound } from '../../bench/lib/latency-run';
import { averageServerTiming, parseServerTiming } from '../../bench/lib/server-timing';
import { spread, summarizePhases, workflowPhases } from '../../bench/lib/workflow-breakdown';

describe('bench: Server-Timing', () => {
  it('parses names, durations and descriptions', () => {
    assert.deepEqual(parseServerTiming('auth;dur=1.5, search;desc="hybrid, fused";dur=12 ,cache'), [
      { name: 'auth', dur: 1.5 },
      { name: 'search', desc: 'hybrid, fused', dur: 12 },
      { name: 'cache' },
    ]);
  });

  it('drops a duration that is not a number and skips empty entries', () => {
    assert.deepEqual(parseServerTiming('a;dur=abc, , b;DUR=2;dur=3'), [{ name: 'a' }, { name: 'b', dur: 2 }]);
    assert.deepEqual(parseServerTiming(undefined), []);
  });

  it('averages each entry over the responses that carry it', () => {
    const avg = averageServerTiming(['embed;dur=10, total;dur=30', 'embed;dur=20, embed;dur=2, total;dur=40', null]);
    assert.deepEqual(avg, { embed: { samples: 2, mean_ms: 16 }, total: { samples: 2, mean_ms: 35 } });
  });
});

describe('bench: workflow history phases', () => {
  const history = [
    ['WORKFLOW_EXECUTION_STARTED', 1000],
    ['WORKFLOW_TASK_SCHEDULED', 1000],
    ['WORKFLOW_TASK_STARTED', 1004],
    ['WORKFLOW_TASK_COMPLETED', 1010],
    ['ACTIVITY_TASK_SCHEDULED', 1010],
    ['ACTIVITY_TASK_STARTED', 1013],
    ['ACTIVITY_TASK_COMPLETED', 1093],
    ['WORKFLOW_TASK_SCHEDULED', 1093],
    ['WORKFLOW_TASK_STARTED', 1095],
    ['WORKFLOW_TASK_COMPLETED', 1099],
    ['WORKFLOW_EXECUTION_COMPLETED', 1100],
  ].map(([type, ms]) => ({ type: type as string, ms: ms as number }));

  it('splits a workflow-per-search run into its steps', () => {
    assert.deepEqual(workflowPhases(history), {
      start_to_first_workflow_task_ms: 4,
      workflow_task_to_activity_scheduled_ms: 6,
      activity_queue_wait_ms: 3,
      activity_run_ms: 80,
      activity_completed_to_workflow_completed_ms: 7,
      workflow_total_ms: 100,
    });
  });

  it('leaves out steps a history does not have', () => {
    const noActivity = history.filter((e) => !e.type.startsWith('ACTIVITY_'));
    const phases = workflowPhases(noActivity);
    assert.equal(phases.activity_run_ms, null);
    assert.equal(phases.workflow_total_ms, 100);
  });

  it('summarizes phases with the client remainder', () => {
    const phases = workflowPhases(history);
    const s = summarizePhases([
      { ...phases, client_ms: 130 },
      { ...phases, client_ms: 150 },
    ]);
    assert.deepEqual(s.activity_run_ms, { samples: 2, mean_ms: 80, p50_ms: 80 });
    assert.deepEqual(s.http_api_and_result_poll_ms, { samples: 2, mean_ms: 40, p50_ms: 30 });
    assert.equal(s.client_ms.mean_ms, 140);
  });

  it('spreads a sample evenly over a list', () => {
    assert.deepEqual(spread([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 5), [0, 2, 4, 6, 8]);
    assert.deepEqual(spread([1, 2], 5), [1, 2]);
  });
});

describe('bench: latency pooling and corpus', () => {
  it('pools rounds: percentiles over all answers, throughput over the summed wall time', () => {
    const s = pooledStats([
      {
        samples: [
          { ms: 10, status: 200 },
          { ms: 30, status: 200 },
        ],
        seconds: 1,
      },
      {
        samples: [
          { ms: 20, status: 200 },
          { ms: 99, status: 503 },
        ],
        seconds: 1,
      },
    ]);
    assert.equal(s.ok, 3);
    assert.equal(s.p50_ms, 20);
    assert.equal(s.per_s, 1.5);
    assert.deepEqual(s.errors, { 503: 1 });
    assert.equal(ratio(3, 2), 1.5);
    assert.equal(ratio(Number.NaN, 2), null);
    assert.equal(s.steady_per_s, null);
  });

  it('pools the steady parts of rounds apart from their wall time', () => {
    const s = pooledStats([
      { samples: [{ ms: 10, status: 200 }], seconds: 4, steady: { seconds: 2, ok: 6 } },
      { samples: [{ ms: 10, status: 200 }], seconds: 4, steady: { seconds: 1, ok: 3 } },
      { samples: [{ ms: 10, status: 200 }], seconds: 1 },
    ]);
    assert.equal(s.per_s, 0.33);
    assert.equal(s.steady_per_s, 3);
  });

  it('has a steady part only when calls are sent after every lane has had an answer', async () => {
    const answer = () => new Promise<{ status: number }>((resolve) => setImmediate(() => resolve({ status: 200 })));
    const short = await runRound(2, 2, 10_000, answer);
    assert.equal(short.samples.length, 2);
    assert.equal(short.steady, undefined);
    const long = await runRound(20, 2, 10_000, answer);
    assert.equal(long.samples.length, 20);
    assert.ok(long.steady, 'a round of 20 calls over 2 lanes has a steady part');
    // Neither the lanes' first answers nor those of the last calls in flight are in it.
    assert.ok(long.steady.ok > 0 && long.steady.ok <= 20 - 2);
    assert.ok(long.steady.seconds <= long.seconds);
  });

  it('builds valid articles from threads and a fixed query order', () => {
    const article = stackFaqArticle({ thread_id: 'sf001', question: 'Q?', answers: ['a', ' b '] });
    assert.equal(article.body, 'a\n\nb');
    assert.equal(checkUploadItems(articlesUpload, { articles: [article] }).failed.length, 0);
    const queries = ['x', 'y', 'z', ' '].map((text, i) => ({
      query_id: `q${i}`,
      text,
      thread_id: 't',
      group: 'A' as const,
    }));
    assert.deepEqual(shuffledQueries(queries), shuffledQueries(queries));
    assert.deepEqual([...shuffledQueries(queries)].sort(), ['x', 'y', 'z']);
  });
});
