/**
 * The project's own processes (worker, API) as children of the launcher, run through ts-node.
 */
import path from 'node:path';
import { Service, spawnService } from './services';

const root = path.resolve(__dirname, '..', '..');

export function spawnNode(name: string, entry: string, env: Record<string, string>, logDir: string): Service {
  return spawnService({
    name,
    cmd: process.execPath,
    args: ['-r', 'ts-node/register/transpile-only', path.join(root, entry)],
    cwd: root,
    env,
    logDir,
  });
}
