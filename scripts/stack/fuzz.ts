/**
 * `npm run test:fuzz`: property-based fuzzing driven by the served OpenAPI document. Starts a test
 * stack like `npm test`, a worker and the API in this process, and a key with every scope for a
 * fresh tenant, then runs schemathesis with every check against `/openapi.json`. Exits non-zero
 * when schemathesis reports any failure. Its settings are in test/fuzz/schemathesis.toml, a pinned
 * seed among them, so every run tries the same cases; extra arguments go to schemathesis, e.g.
 * `--seed <n>` (other cases) or `--include-path /v1/cases`.
 *
 * The API runs with its normal settings except two: the rate limits (per key, and of failed
 * authentications per address, which the auth checks cause) are raised so the fuzzer is not
 * answered 429 instead of being tested, and the upload and model deadlines are shortened to stay
 * below the fuzzer's request timeout (a slow answer is then the documented 408, not a timeout).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { SCOPES } from '../../api/scopes';
import { startInProcess } from './in-process';
import { metricsOffUnlessSet } from './processes';
import { VERSIONS, ensureSchemathesis } from './provision';
import { exitWith, withTestStack } from './test-stack';

/** Where schemathesis's settings are: checks, examples per operation, workers, request timeout. */
const CONFIG_FILE = path.resolve(__dirname, '../../test/fuzz/schemathesis.toml');
/** The documented deliberate exceptions, each matched by its exact answer (docs/api.md, "Fuzzing"). */
const HOOKS_FILE = path.resolve(__dirname, '../../test/fuzz/hooks.py');
/** Deadlines below the fuzzer's request timeout (30 s), so slow work answers the documented 408. */
const API_SETTINGS = {
  // Server errors are logged (with their stack) between schemathesis's lines.
  LOG_LEVEL: 'error',
  RATE_LIMIT_PER_MINUTE: '1000000',
  AUTH_FAILURES_PER_MINUTE: '1000000',
  DEADLINE_UPLOAD_MS: '20000',
  DEADLINE_MODEL_MS: '20000',
};

/**
 * schemathesis prints its section banners in pytest's style, and its last one reads like a pytest
 * run that executed no test (`==== 1 warning in 101.16s ====`): CI log readers take it for one.
 * Each banner is passed on as a plain `[schemathesis] …` line instead; every other line unchanged.
 */
export function plainBanner(line: string): string {
  const banner = /^=+ (.+?) =+$/.exec(line.trim());
  return banner ? `[schemathesis] ${banner[1]}` : line;
}

function schemathesisArgs(o: { baseUrl: string; reportFile: string }): string[] {
  return [
    '--config-file',
    CONFIG_FILE,
    'run',
    `${o.baseUrl}/openapi.json`,
    '--checks',
    'all',
    '--report',
    'json',
    '--report-json-path',
    o.reportFile,
    ...process.argv.slice(2),
  ];
}

/**
 * The run's verdict from schemathesis's JSON report: one line with the details, then the plain
 * closing line CI logs are read for (`fuzz: N passed, N failed`).
 */
function summary(reportFile: string, code: number, seconds: number): string {
  let report: any;
  try {
    report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  } catch {
    return `[fuzz] FAILED: schemathesis exited ${code} without a report (${seconds} s)\nfuzz: 0 passed, 1 failed`;
  }
  const failures = (report.failures ?? []) as { title: string; count: number; operations: string[] }[];
  const unique = report.test_cases?.unique_failures ?? failures.length;
  const counts = `${report.operations?.tested ?? '?'} operations, ${report.test_cases?.generated ?? '?'} test cases, ${seconds} s`;
  const failed = code === 0 ? 0 : Math.max(1, report.test_cases?.with_failures ?? unique);
  const closing = `fuzz: ${(report.test_cases?.generated ?? 0) - failed} passed, ${failed} failed`;
  if (code === 0) return `[fuzz] passed: 0 failures (${counts})\n${closing}`;
  const kinds = failures.map((f) => `${f.title} ×${f.count}`).join('; ');
  const errors = (report.errors ?? []).map((e: { title: string }) => e.title).join('; ');
  return `[fuzz] FAILED: ${unique} unique failures (${counts})${kinds ? `: ${kinds}` : ''}${errors ? `; errors: ${errors}` : ''}\n${closing}`;
}

async function main(): Promise<number> {
  // Installed before the stack starts: the first install takes a while and needs no services.
  const schemathesis = await ensureSchemathesis();
  return withTestStack('fuzz', async (stack, dataDir) => {
    Object.assign(process.env, metricsOffUnlessSet(), stack.env);
    const app = await startInProcess({ env: API_SETTINGS });
    try {
      // The stack is fresh, so is the tenant; the settings name it as the business id to send.
      const { key } = await app.keys.create({ tenant: 'fuzz', scopes: [...SCOPES], name: 'fuzz' });
      const reportFile = path.join(dataDir, 'logs', 'fuzz-report.json');
      const args = schemathesisArgs({ baseUrl: app.baseUrl, reportFile });
      console.log(`[fuzz] schemathesis ${VERSIONS.schemathesis} ${args.join(' ')}`);
      const started = Date.now();
      const code = await new Promise<number>((resolve) => {
        // Run in the data folder, so nothing schemathesis writes lands in the repository.
        const env = { ...process.env, FUZZ_API_KEY: key, SCHEMATHESIS_HOOKS: HOOKS_FILE };
        const child = spawn(schemathesis, args, { cwd: dataDir, env, stdio: ['inherit', 'pipe', 'inherit'] });
        const lines = readline.createInterface({ input: child.stdout! });
        lines.on('line', (line) => console.log(plainBanner(line)));
        // Its last lines are printed before the verdict: wait for the end of its output too.
        const printed = new Promise((done) => lines.once('close', done));
        child.on('error', () => resolve(1));
        child.on('exit', (c) => printed.then(() => resolve(c ?? 1)));
      });
      console.log(summary(reportFile, code, Math.round((Date.now() - started) / 1000)));
      return code;
    } finally {
      await app.close();
    }
  });
}

if (require.main === module) exitWith('fuzz', main);
