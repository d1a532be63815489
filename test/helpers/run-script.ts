import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

/** Runs one of the project's TypeScript commands (an operator command) as a child process, against the test stack. */
export function runScript(script: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  return runScriptWith({}, script, ...args);
}

/** runScript with more environment, e.g. the task queue of the harness. */
export function runScriptWith(env: Record<string, string>, script: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', script, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}
