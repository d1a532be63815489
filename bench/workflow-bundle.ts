/**
 * `npm run bench:workflow-bundle [-- --runs n]`: what a process's start spends on the workflow
 * bundle. Before the shared bundle (worker/workflow-bundle.ts), each worker start bundled
 * workflows/ with webpack and each API start bundled workflows/ask.ts for its ask worker; now both
 * load the file built at provisioning. Each way is timed in a fresh Node process (as at a start:
 * nothing cached in memory), `--runs` times; no services needed. Writes
 * bench/results/workflow-bundle.json.
 */
import { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { workflowBundle } from '../worker/workflow-bundle';
import { positiveInt, REPO_ROOT, round, runInfo, writeResult } from './lib/run-info';

/** The ways a start gets its bundle, each as the code a fresh process runs (it prints the milliseconds taken). */
const WAYS: Record<string, string> = {
  api_bundling_ask_before: `bundleWorkflowCode({ workflowsPath: require.resolve('./workflows/ask'), logger: quiet })`,
  worker_bundling_all_before: `bundleWorkflowCode({ workflowsPath: require.resolve('./workflows'), logger: quiet })`,
  shared_bundle_now: `require('./worker/workflow-bundle').workflowBundle()`,
};

function timedOnce(call: string): number {
  const script = [
    "const { bundleWorkflowCode } = require('@temporalio/worker');",
    'const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };',
    'const started = process.hrtime.bigint();',
    `Promise.resolve(${call}).then(() => console.log(Number(process.hrtime.bigint() - started) / 1e6));`,
  ].join('\n');
  const out = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`timing ${call} failed:\n${out.stderr}`);
  return Number(out.stdout.trim().split('\n').pop());
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const o = new Command('bench:workflow-bundle')
    .option('--runs <n>', 'fresh processes per way', positiveInt, 5)
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/workflow-bundle.json')
    .parse()
    .opts<{ runs: number; out: string }>();
  const info = runInfo();
  // The shared bundle is built first, as provisioning does, so its way measures loading it.
  const { codePath } = await workflowBundle();
  const ways: Record<string, { median_ms: number; runs_ms: number[] }> = {};
  for (const [name, call] of Object.entries(WAYS)) {
    const runs = Array.from({ length: o.runs }, () => round(timedOnce(call), 1));
    ways[name] = { median_ms: median(runs), runs_ms: runs };
    console.log(`[workflow-bundle] ${name}: median ${ways[name].median_ms} ms (${runs.join(', ')})`);
  }
  writeResult(o.out, { ...info, bundle: path.relative(REPO_ROOT, codePath), runs: o.runs, ways });
}

main().catch((err) => {
  console.error(`[bench:workflow-bundle] ${err.stack ?? err}`);
  process.exit(1);
});
