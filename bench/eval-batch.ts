/**
 * `npm run bench:eval-batch [-- options]`: batch evaluation at scale, against the real stack
 * (scripts/stack/bench.ts starts it; this script runs the worker as a child process so it can be
 * killed for real).
 *
 * A file of `--records` logged calls (100,000 by default) is written in the run's temporary
 * folder: questions from BANKING77 (train and test, in turn), a few canned answers, one in ten
 * carrying an email address, a card number or a key to redact, two models. It is graded with the
 * built-in judge and the `default` use case as one batch (workflows/eval-batch.ts); `--skip-rules`
 * leaves some of its rules out (the run's copy of the use case, which the worker reads through
 * USE_CASES_DIR). Once a third of
 * the lines are done the worker is killed (SIGKILL) and started again; the batch must then finish
 * with every record stored exactly once. Reported: records, seconds, records/s, whether it
 * resumed after the kill with one result per record, and how many records were graded twice (a
 * second result is refused by the store, whose object ids come from the record ids, and counted).
 *
 * Writes bench/results/eval-batch.json. docs/benchmarks.md describes the protocol and the numbers.
 */
import { Client, Connection } from '@temporalio/client';
import { Command } from 'commander';
import YAML from 'yaml';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadServicesConfig } from '../domain/config';
import { connectWeaviate } from '../domain/weaviate/client';
import { COLLECTIONS } from '../domain/weaviate/collections';
import { DEFAULT_USE_CASES_DIR } from '../domain/evaluation/use-cases';
import { evalBatchProgress, startEvalBatch } from '../scripts/eval-batches';
import { WorkerPresence } from '../api/worker-presence';
import { spawnNode } from '../scripts/stack/processes';
import { stopService, type Service } from '../scripts/stack/services';
import { loadBanking77 } from './lib/datasets';
import { progress } from './lib/progress';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';

interface Options {
  datasets: string;
  records: number;
  skipRules: string[];
  out: string;
}

const ANSWERS = [
  'You can change this in Settings > Account. Let me know if anything is unclear.',
  'Sorry for the trouble! Your request has been forwarded to our payments team, who will reply within two business days.',
  'Please open the app, tap Cards, and follow the steps shown there.',
];
const LEAKS = [
  'Contact me at jane.doe@example.com.',
  'Your card 4111 1111 1111 1111 is active.',
  'Use the key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx123 for the API.',
];

async function writeRecords(file: string, questions: string[], count: number): Promise<void> {
  const out = fs.createWriteStream(file);
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const leak = i % 10 === 0 ? ` ${LEAKS[(i / 10) % LEAKS.length]}` : '';
    out.write(
      `${JSON.stringify({
        id: `bench-${i}`,
        messages: [{ role: 'user', content: questions[i % questions.length] }],
        output: ANSWERS[i % ANSWERS.length] + leak,
        model: i % 2 ? 'model-a' : 'model-b',
        timestamp: new Date(now - (i % 1000) * 60_000).toISOString(),
        latency_ms: 200 + (i % 700),
        metadata: { language: 'en' },
      })}\n`,
    );
  }
  out.end();
  await once(out, 'finish');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A folder of use cases holding the shipped `default` without the rules `skip` names, for the
 * worker's USE_CASES_DIR; the ids of the rules it keeps.
 */
function useCaseWithout(o: { dir: string; skip: string[] }): string[] {
  const shipped = YAML.parse(fs.readFileSync(path.join(DEFAULT_USE_CASES_DIR, 'default.yaml'), 'utf8')) as {
    rules: { id: string }[];
  };
  const unknown = o.skip.filter((id) => !shipped.rules.some((r) => r.id === id));
  if (unknown.length) throw new Error(`--skip-rules: the default use case has no rule ${unknown.join(', ')}`);
  shipped.rules = shipped.rules.filter((r) => !o.skip.includes(r.id));
  fs.mkdirSync(o.dir, { recursive: true });
  fs.writeFileSync(path.join(o.dir, 'default.yaml'), YAML.stringify(shipped));
  return shipped.rules.map((r) => r.id);
}

async function main(): Promise<void> {
  const o = new Command('bench:eval-batch')
    .description(
      'Batch evaluation benchmark: a large import graded by the built-in judge, with the worker killed once mid-run.',
    )
    .option('--datasets <dir>', 'folder holding banking77/ (relative to the repository root)', DEFAULT_DATASETS)
    .option('--records <n>', 'records in the import file', positiveInt, 100_000)
    .option(
      '--skip-rules <ids>',
      'rules of the default use case to leave out, comma-separated (on-topic: no embedding per record)',
      (value: string) => value.split(',').filter(Boolean),
      [],
    )
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/eval-batch.json')
    .parse()
    .opts<Options>();
  const info = runInfo();
  const root = resolveDatasets(o.datasets);
  const questions = [...loadBanking77(root, 'train'), ...loadBanking77(root, 'test')].map((r) => r.text);
  const dataDir = process.env.SUPPORT_AI_BENCH_DATA ?? fs.mkdtempSync(path.join(os.tmpdir(), 'eval-batch-'));
  const file = path.join(dataDir, 'calls.jsonl');
  await writeRecords(file, questions, o.records);
  console.log(`[eval-batch] ${o.records} records written (${(fs.statSync(file).size / 1e6).toFixed(1)} MB)`);

  const config = loadServicesConfig();
  const taskQueue = `bench-eval-${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'info',
  };
  let rules: string[] | undefined;
  if (o.skipRules.length) {
    env.USE_CASES_DIR = path.join(dataDir, 'use-cases');
    rules = useCaseWithout({ dir: env.USE_CASES_DIR, skip: o.skipRules });
  }
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const presence = new WorkerPresence(client, config.temporal.namespace, taskQueue);
  let worker: Service | undefined;
  let starts = 0;
  const startWorker = async () => {
    worker = spawnNode(`worker-${++starts}`, 'worker/main.ts', env, dataDir);
    for (
      let i = 0;
      i < 240 && !(fs.readFileSync(worker.logFile, 'utf8').includes('worker polling') && (await presence.isPolling()));
      i++
    )
      await sleep(250);
  };
  const tenant = `bench-eval-${randomBytes(4).toString('hex')}`;
  try {
    await startWorker();
    const started = Date.now();
    const { workflowId } = await startEvalBatch({ client, taskQueue, tenant, path: file });
    const bar = progress('[eval-batch] lines graded', o.records);
    let shown = 0;
    let killedAt: number | null = null;
    let totals;
    for (;;) {
      const p = await evalBatchProgress({ client, workflowId });
      const done = p.done ? o.records : (p.totals?.linesDone ?? 0);
      if (done > shown) bar.tick(done - shown);
      shown = done;
      if (p.done) {
        totals = p.totals!;
        break;
      }
      if (killedAt === null && done >= o.records / 3) {
        killedAt = done;
        const exited = new Promise((r) => worker!.child.once('exit', r));
        worker!.child.kill('SIGKILL');
        await exited;
        console.log(`\n[eval-batch] worker killed at ${done} lines; starting it again`);
        await sleep(2000);
        await startWorker();
      }
      await sleep(1000);
    }
    bar.stop();
    const seconds = (Date.now() - started) / 1000;
    const weaviate = await connectWeaviate(config.weaviate);
    const collection = weaviate.collections.use(COLLECTIONS.evalResult).withTenant(tenant);
    // A result's object id is derived from the tenant and the record id, so the store cannot hold
    // two results of one record: a second grading shows as an insert refused as a duplicate, and
    // a record never graded as a missing result.
    const stored = await collection.length();
    const gradedTwice = totals.duplicates;
    writeResult(o.out, {
      ...info,
      records: o.records,
      seconds: round(seconds, 1),
      records_per_s: round(o.records / seconds, 1),
      resumed_after_kill: killedAt !== null && stored === o.records,
      graded_twice: gradedTwice,
      killed_at_line: killedAt,
      stored_results: stored,
      totals: { ...totals, problems: totals.problems.length },
      judge: 'built-in',
      use_case: 'default',
      ...(rules && { skipped_rules: o.skipRules, rules }),
    });
    console.log(
      `[eval-batch] ${o.records} records in ${seconds.toFixed(1)} s (${(o.records / seconds).toFixed(1)}/s); stored ${stored}, graded twice ${gradedTwice}`,
    );
  } finally {
    if (worker) await stopService(worker);
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[eval-batch] ${err.stack ?? err}`);
    process.exit(1);
  },
);
