import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import { loadServicesConfig } from '../../domain/config';
import { connectWeaviate } from '../../domain/weaviate/client';
import { listResults } from '../../domain/weaviate/eval-results';
import { evalBatchProgress, startEvalBatch } from '../../scripts/eval-batches';
import { freshTenant, getHarness } from '../helpers/harness';
import { runScriptAsync } from '../helpers/run-script';
import { killableWorker, type KillableWorker } from '../helpers/worker-process';

const weaviate = () => connectWeaviate(loadServicesConfig().weaviate);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dir = fs.mkdtempSync(path.join(process.env.SUPPORT_AI_TEST_DATA ?? os.tmpdir(), 'eval-import-lines-'));

const record = (id: string, o: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    messages: [{ role: 'user', content: 'How do I reset my password?' }],
    output: 'Open Settings and choose Reset password.',
    model: 'model-a',
    ...o,
  });

/** The peak resident memory of a command, printed by the preloaded test/helpers/peak-rss.js. */
const PEAK_RSS = {
  NODE_OPTIONS:
    `${process.env.NODE_OPTIONS ?? ''} --require ${path.resolve(__dirname, '../helpers/peak-rss.js')}`.trim(),
};
const commandPeakKb = (stderr: string) => Number(/^peak-rss-kb (\d+)$/m.exec(stderr)?.[1]);

/**
 * A process's resident memory (Linux): `hwm` is its peak since the last `resetPeak`, which sets it
 * back to the current size (proc(5), /proc/<pid>/clear_refs).
 */
const status = (pid: number, field: 'VmHWM' | 'VmRSS') =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const resetPeak = (pid: number) => fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');

async function waitDone(workflowId: string) {
  const { temporal: client } = await getHarness();
  for (;;) {
    const p = await evalBatchProgress({ client, workflowId });
    if (p.done) return p.totals!;
    await sleep(200);
  }
}

describe('npm run eval:import: a line of 120 MB', () => {
  const LINE_BYTES = 120 * 1024 * 1024;
  let worker: KillableWorker;
  let huge: string;
  let small: string;

  before(async function () {
    this.timeout(120_000);
    worker = await killableWorker();
    await worker.start();
    small = path.join(dir, 'small.jsonl');
    fs.writeFileSync(small, `${record('warm-1')}\n${record('warm-2')}\n`);
    // Written in pieces: the test never holds the line either. Valid JSON, a record but for its size.
    huge = path.join(dir, 'huge.jsonl');
    const fd = fs.openSync(huge, 'w');
    fs.writeSync(fd, `${record('before')}\n`);
    fs.writeSync(fd, '{"id": "huge", "model": "model-a", "messages": [{"role": "user", "content": "hi"}], "output": "');
    const piece = 'a'.repeat(1024 * 1024);
    for (let written = 0; written < LINE_BYTES; written += piece.length) fs.writeSync(fd, piece);
    fs.writeSync(fd, `"}\n${record('after')}\n`);
    fs.closeSync(fd);
  });
  after(async () => {
    await worker?.close();
    fs.rmSync(huge, { force: true });
  });

  it('is skipped by its byte length as it streams past, by the command and by the worker, never held in memory', async function () {
    this.timeout(300_000);
    const env = { ...PEAK_RSS, TASK_QUEUE: worker.taskQueue };
    // The same command on a small file first: its own peak memory, and a worker that has graded once.
    const warm = await runScriptAsync(env, 'scripts/eval-import.ts', small, '--tenant', freshTenant('eval-warm'));
    assert.equal(warm.code, 0, warm.stderr + warm.stdout);

    const tenant = freshTenant('eval-huge');
    const pid = worker.pid();
    resetPeak(pid);
    const workerBefore = status(pid, 'VmRSS');
    const out = await runScriptAsync(env, 'scripts/eval-import.ts', huge, '--tenant', tenant);
    assert.equal(out.code, 0, out.stderr + out.stdout);
    assert.match(out.stderr, /^line 2: longer than 1,500,000 characters \(skipped\)$/m);
    assert.match(out.stdout, /2 records to grade, 1 bad lines skipped/);
    assert.match(
      out.stdout,
      /2 graded, 0 already graded before, 1 bad lines, 0 not gradable, 0 repeated ids \(3 lines\)/,
    );
    assert.deepEqual((await listResults({ weaviate }, { tenant })).map((r) => r.recordId).sort(), ['after', 'before']);

    // Neither process ever held the line: their peaks grew by less than its size (reading it whole
    // took more than twice its size in each).
    const workerGrowth = (status(pid, 'VmHWM') - workerBefore) * 1024;
    assert.ok(workerGrowth < LINE_BYTES, `the worker's peak memory grew by ${workerGrowth} bytes`);
    const commandGrowth = (commandPeakKb(out.stderr) - commandPeakKb(warm.stderr)) * 1024;
    assert.ok(
      commandGrowth < LINE_BYTES,
      `the command's peak memory was ${commandGrowth} bytes above its run on a small file`,
    );
  });
});

describe('npm run eval:import: the key "__proto__"', () => {
  const tenant = freshTenant('eval-proto');
  let file: string;

  before(() => {
    file = path.join(dir, 'proto.jsonl');
    const lines = [
      record('plain', { metadata: { product: 'app' } }),
      '{"id": "in-metadata", "messages": [{"role": "user", "content": "hi"}], "output": "hello", "model": "m", "metadata": {"__proto__": {"polluted": true}}}',
      // Escaped, it is still the key once parsed; deeper, and in a field the record does not know.
      '{"id": "escaped", "messages": [{"role": "user", "content": "hi"}], "output": "hello", "model": "m", "metadata": {"a": [{"\\u005f_proto__": {"polluted": true}}]}}',
      '{"id": "unknown-field", "messages": [{"role": "user", "content": "hi"}], "output": "hello", "model": "m", "extra": {"__proto__": {}}}',
    ];
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
  });

  it('refuses such a record as the API refuses such a body: reported and skipped by the command', async function () {
    this.timeout(120_000);
    const h = await getHarness();
    const out = await runScriptAsync({ TASK_QUEUE: h.taskQueue }, 'scripts/eval-import.ts', file, '--tenant', tenant);
    assert.equal(out.code, 0, out.stderr + out.stdout);
    for (const line of [2, 3, 4])
      assert.match(out.stderr, new RegExp(`^line ${line}: must not use the key "__proto__" \\(skipped\\)$`, 'm'));
    assert.match(out.stdout, /1 graded, 0 already graded before, 3 bad lines/);
    const results = await listResults({ weaviate }, { tenant });
    assert.deepEqual(
      results.map((r) => r.recordId),
      ['plain'],
    );
  });

  it('and by the worker, given the file without the command', async function () {
    this.timeout(120_000);
    const h = await getHarness();
    const other = freshTenant('eval-proto-worker');
    const { workflowId } = await startEvalBatch({
      client: h.temporal,
      taskQueue: h.taskQueue,
      tenant: other,
      path: file,
    });
    const totals = await waitDone(workflowId);
    assert.equal(totals.invalid, 3);
    assert.deepEqual(
      totals.problems.map((p) => [p.line, p.error]),
      [2, 3, 4].map((line) => [line, 'must not use the key "__proto__"']),
    );
    assert.deepEqual(
      (await listResults({ weaviate }, { tenant: other })).map((r) => r.recordId),
      ['plain'],
    );
  });
});
