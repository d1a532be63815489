import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import { connectWeaviate } from '../../domain/weaviate/client';
import { listResults } from '../../domain/weaviate/eval-results';
import { loadServicesConfig } from '../../domain/config';
import { retentionScheduleId } from '../../api/eval-retention';
import { evalBatchProgress, startEvalBatch } from '../../scripts/eval-batches';
import { freshTenant, getHarness } from '../helpers/harness';
import { runScriptAsync } from '../helpers/run-script';
import { killableWorker, type KillableWorker } from '../helpers/worker-process';

const weaviate = () => connectWeaviate(loadServicesConfig().weaviate);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dir = fs.mkdtempSync(path.join(process.env.SUPPORT_AI_TEST_DATA ?? os.tmpdir(), 'eval-import-'));

function record(i: number, o: Record<string, unknown> = {}) {
  return {
    id: `call-${i}`,
    messages: [{ role: 'user', content: `How do I reset my password? (${i})` }],
    output: 'Open Settings, then Security, and choose Reset password.',
    model: i % 2 ? 'model-a' : 'model-b',
    timestamp: new Date(Date.now() - i * 60_000).toISOString(),
    latency_ms: 100 + i,
    metadata: { product: 'app', language: 'en' },
    ...o,
  };
}

function writeFile(name: string, lines: string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function waitDone(workflowId: string, timeoutMs = 120_000) {
  const { temporal: client } = await getHarness();
  const until = Date.now() + timeoutMs;
  for (;;) {
    const p = await evalBatchProgress({ client, workflowId });
    if (p.done) return p.totals!;
    if (Date.now() > until) throw new Error(`batch ${workflowId} not done in time`);
    await sleep(200);
  }
}

describe('batch evaluation: npm run eval:import', () => {
  const tenant = freshTenant('eval');
  let file: string;

  before(() => {
    const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify(record(i)));
    lines[3] = '{"id": "broken", "messages": [';
    lines[7] = JSON.stringify({ id: 'no-model', messages: [{ role: 'user', content: 'hi' }], output: 'hello' });
    lines[11] = JSON.stringify(record(11, { timestamp: 'yesterday' }));
    // Personal data and secrets in the output and the input: graded as sent, stored redacted.
    lines[12] = JSON.stringify(
      record(12, {
        output:
          'Write to jane.doe@example.com or use card 4111 1111 1111 1111, key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx123.',
        messages: [{ role: 'user', content: 'My IBAN is DE89 3704 0044 0532 0130 00, call +44 20 7946 0958' }],
      }),
    );
    file = writeFile('calls.jsonl', lines);
  });

  it('reports bad lines with their numbers, grades the rest, and stores them redacted', async function () {
    this.timeout(120_000);
    const h = await getHarness();
    const out = await runScriptAsync({ TASK_QUEUE: h.taskQueue }, 'scripts/eval-import.ts', file, '--tenant', tenant);
    assert.equal(out.code, 0, out.stderr + out.stdout);
    assert.match(out.stderr, /^line 4: not JSON \(skipped\)$/m);
    assert.match(out.stderr, /^line 8: \/model is required \(skipped\)$/m);
    assert.match(out.stderr, /^line 12: \/timestamp must match format "date-time" \(skipped\)$/m);
    assert.match(out.stdout, /27 records to grade, 3 bad lines skipped/);
    assert.match(out.stdout, /batch eval-batch:/);
    assert.match(out.stdout, /27 graded, 0 already graded before, 3 bad lines/);

    const results = await listResults({ weaviate }, { tenant });
    assert.equal(results.length, 27);
    const secret = results.find((r) => r.recordId === 'call-12')!;
    assert.equal(secret.output, 'Write to [EMAIL] or use card [CARD_NUMBER], key [API_KEY].');
    assert.equal(secret.messages[0].content, 'My IBAN is [IBAN], call [PHONE]');
    assert.equal(secret.redactions, 5);
    const stored = JSON.stringify(results);
    assert.doesNotMatch(stored, /jane\.doe|4111 1111|sk-proj|DE89 3704|7946 0958/);
    // Graded as sent: the critical rules failed on the original output.
    const failed = secret.rules.filter((r) => r.outcome === 'fail').map((r) => r.ruleId);
    assert.ok(
      ['no-email-addresses', 'no-card-numbers', 'no-secrets'].every((id) => failed.includes(id)),
      JSON.stringify(secret.rules),
    );
    assert.equal(secret.correctness.verdict, 'defect');
    const plain = results.find((r) => r.recordId === 'call-1')!;
    assert.deepEqual(
      { model: plain.model, useCase: plain.useCase, latencyMs: plain.latencyMs, metadata: plain.metadata },
      { model: 'model-a', useCase: 'default', latencyMs: 101, metadata: { product: 'app', language: 'en' } },
    );
    assert.match(plain.judge, /^builtin/);
    assert.ok(plain.rules.every((r) => r.severity && r.category));
  });

  it('grades each record once: importing the file again grades nothing new', async function () {
    this.timeout(120_000);
    const h = await getHarness();
    const out = await runScriptAsync(
      { TASK_QUEUE: h.taskQueue },
      'scripts/eval-import.ts',
      file,
      '--tenant',
      tenant,
      '--detach',
    );
    assert.equal(out.code, 0, out.stderr);
    const workflowId = out.stdout.match(/batch (eval-batch:\S+)/)![1];
    assert.match(
      out.stdout,
      new RegExp(`/workflows/${encodeURIComponent(workflowId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    const totals = await waitDone(workflowId);
    assert.equal(totals.graded, 0);
    assert.equal(totals.alreadyGraded, 27);
    assert.equal((await listResults({ weaviate }, { tenant })).length, 27);
  });

  it('keeps tenants apart: another tenant sees none of these results', async () => {
    assert.deepEqual(await listResults({ weaviate }, { tenant: freshTenant('other') }), []);
  });

  it('refuses an unknown use case and a file with nothing to grade, before starting anything', async () => {
    const bad = await runScriptAsync(
      {},
      'scripts/eval-import.ts',
      file,
      '--tenant',
      tenant,
      '--use-case',
      'no-such-use-case',
    );
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--use-case no-such-use-case names no use case/);
    const empty = await runScriptAsync(
      {},
      'scripts/eval-import.ts',
      writeFile('empty.jsonl', ['not json']),
      '--tenant',
      tenant,
    );
    assert.notEqual(empty.code, 0);
    assert.match(empty.stderr, /nothing to grade/);
  });

  it('purges results older than their use case retention when the schedule is triggered', async function () {
    this.timeout(120_000);
    const h = await getHarness();
    const old = freshTenant('retention');
    const lines = [
      JSON.stringify(record(1, { id: 'old-1', timestamp: '2020-01-01T00:00:00Z' })),
      JSON.stringify(record(2, { id: 'old-2', timestamp: new Date(Date.now() - 31 * 86_400_000).toISOString() })),
      JSON.stringify(record(3, { id: 'recent', timestamp: new Date(Date.now() - 29 * 86_400_000).toISOString() })),
    ];
    const { workflowId } = await startEvalBatch({
      client: h.temporal,
      taskQueue: h.taskQueue,
      tenant: old,
      path: writeFile('old.jsonl', lines),
    });
    await waitDone(workflowId);
    assert.equal((await listResults({ weaviate }, { tenant: old })).length, 3);
    const schedule = h.temporal.schedule.getHandle(retentionScheduleId(h.taskQueue));
    const before = (await schedule.describe()).info.recentActions.length;
    await schedule.trigger();
    const until = Date.now() + 60_000;
    let remaining = await listResults({ weaviate }, { tenant: old });
    while (remaining.length !== 1 && Date.now() < until) {
      await sleep(500);
      remaining = await listResults({ weaviate }, { tenant: old });
    }
    assert.deepEqual(
      remaining.map((r) => r.recordId),
      ['recent'],
    );
    assert.ok((await schedule.describe()).info.recentActions.length > before);
  });
});

describe('batch evaluation: a worker killed mid-run', () => {
  let worker: KillableWorker;
  before(async function () {
    this.timeout(120_000);
    worker = await killableWorker();
    await worker.start();
  });
  after(async () => {
    await worker?.close();
  });

  it('resumes after the worker restarts, and stores every record exactly once', async function () {
    this.timeout(360_000);
    const { temporal: client } = await getHarness();
    const tenant = freshTenant('eval-kill');
    const count = 3000;
    const path_ = writeFile(
      'many.jsonl',
      Array.from({ length: count }, (_, i) => JSON.stringify(record(i, { id: `r-${i}` }))),
    );
    const { workflowId } = await startEvalBatch({
      client,
      taskQueue: worker.taskQueue,
      tenant,
      path: path_,
      chunkLines: 50,
    });
    let p = await evalBatchProgress({ client, workflowId });
    while (!p.done && (p.totals?.linesDone ?? 0) < 300) {
      await sleep(50);
      p = await evalBatchProgress({ client, workflowId });
    }
    assert.ok(!p.done, 'the batch ended before the worker could be killed');
    await worker.kill();
    // Queries need a worker: the last progress read before the kill.
    const atKill = p.totals!;
    await sleep(1000);
    await worker.start();
    const totals = await waitDone(workflowId, 300_000);
    assert.ok(atKill.linesDone < count);
    assert.equal(totals.linesDone, count);
    assert.equal(totals.graded + totals.alreadyGraded, count);
    assert.equal(totals.duplicates, 0);
    const results = await listResults({ weaviate }, { tenant });
    assert.equal(results.length, count);
    assert.equal(new Set(results.map((r) => r.recordId)).size, count);
  });
});
