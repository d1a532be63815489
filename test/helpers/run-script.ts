import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

/** Runs one of the project's TypeScript commands (an operator command) as a child process, against the test stack. */
export function runScript(script: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', script, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: process.env,
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

/**
 * runScript without blocking this process, with more environment (e.g. the harness's task queue):
 * for commands that need the worker running in this process.
 */
export function runScriptAsync(env: Record<string, string>, script: string, ...args: string[]): Promise<CommandOutput> {
  return runCommand(process.execPath, ['-r', 'ts-node/register/transpile-only', script, ...args], env);
}

export interface CommandOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Any command, without blocking this process, from the repository root. */
export function runCommand(cmd: string, args: string[], env: Record<string, string> = {}): Promise<CommandOutput> {
  const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
