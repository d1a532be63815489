import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { commands, TS_NODE } from '../../scripts/commands';

const root = path.resolve(__dirname, '..', '..');

/** How npm's command runs `script` (its node options and loader, scripts/commands.js); ts-node for any other script. */
function nodeArgsFor(script: string, args: string[]): string[] {
  const command = Object.values(commands).find((c) => c.script === script);
  return [...(command?.node ?? TS_NODE), script, ...args];
}

/** Runs one of the project's TypeScript commands (an operator command) as npm runs it, as a child process, against the test stack. */
export function runScript(script: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, nodeArgsFor(script, args), {
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
  return runCommand(process.execPath, nodeArgsFor(script, args), env);
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
