/**
 * `npm run bench:*`: starts a fresh stack in a temporary folder, runs one benchmark script against
 * it (the script starts a worker and the API like the tests do), then stops everything.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { metricsOffUnlessSet } from './processes';
import { freePorts, startStack } from './stack';

async function main(): Promise<number> {
  const [script, ...args] = process.argv.slice(2);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'support-ai-bench-'));
  const stack = await startStack({ dataDir, ports: await freePorts(), headless: true });
  try {
    return await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', script, ...args], {
        stdio: 'inherit',
        env: { ...process.env, ...metricsOffUnlessSet(), ...stack.env, SUPPORT_AI_BENCH_DATA: dataDir },
      });
      child.on('exit', (c) => resolve(c ?? 1));
    });
  } finally {
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[bench] ${err.stack ?? err}`);
    process.exit(1);
  },
);
