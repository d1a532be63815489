/** What a result file records about the run: the code, the date and the machine. */
import { InvalidArgumentError } from 'commander';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

function git(args: string[]): string | undefined {
  const out = spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : undefined;
}

export interface RunInfo {
  commit: string;
  /** Whether the working tree had uncommitted changes when the run started. */
  dirty: boolean;
  date: string;
  machine: {
    cores: number;
    cpu: string;
    memoryGb: number;
    platform: string;
    node: string;
    loadAverage1mAtStart: number;
  };
}

export function runInfo(): RunInfo {
  const cpus = os.cpus();
  return {
    commit: git(['rev-parse', 'HEAD']) ?? 'unknown',
    dirty: (git(['status', '--porcelain']) ?? '') !== '',
    date: new Date().toISOString(),
    machine: {
      cores: cpus.length,
      cpu: cpus[0]?.model.trim() ?? 'unknown',
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      platform: `${os.platform()}-${os.arch()}`,
      node: process.version,
      loadAverage1mAtStart: Math.round(os.loadavg()[0] * 100) / 100,
    },
  };
}

/** The default datasets folder: `../shared/datasets` next to the repository. */
export const DEFAULT_DATASETS = path.join('..', 'shared', 'datasets');

/** Resolves the datasets argument against the repository root (npm runs scripts there). */
export const resolveDatasets = (dir: string) => path.resolve(REPO_ROOT, dir);

/** Writes a result file (pretty JSON, trailing newline) and says where, relative to the repository. */
export function writeResult(file: string, data: unknown): void {
  const target = path.resolve(REPO_ROOT, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, `${JSON.stringify(data, null, 2)}\n`);
  console.log(`[bench] wrote ${path.relative(REPO_ROOT, target)}`);
}

/** Rounds a rate for the result files. */
export const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

/** A commander argument parser for a share: a number above 0 and at most 1. */
export const ratioArg = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new InvalidArgumentError('expected a number above 0 and at most 1');
  return n;
};

/** A commander argument parser for positive integer options. */
export const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer');
  return n;
};
