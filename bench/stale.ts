/**
 * `npm run bench:stale`: the result files of bench/results whose figures may no longer describe the
 * code: measured on a dirty tree, recording no commit, or measured at a commit after which one of
 * the paths it measures changed (bench/measured.ts; the working tree counts, so an uncommitted edit
 * makes a result stale too). Prints one line per stale file and why, nothing when every result is
 * current; exits 1 when it printed anything.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { MEASURED, type Measured } from './measured';

export interface Stale {
  file: string;
  reason: string;
}

/** The files changed, in the working tree, since `commit` under `paths`; undefined when git does not know the commit. */
function changedSince(o: { root: string; commit: string; paths: string[] }): string[] | undefined {
  const known = spawnSync('git', ['cat-file', '-e', `${o.commit}^{commit}`], { cwd: o.root });
  if (known.status !== 0) return undefined;
  const diff = spawnSync('git', ['diff', '--name-only', o.commit, '--', ...o.paths], { cwd: o.root, encoding: 'utf8' });
  if (diff.status !== 0) throw new Error(`git diff failed: ${diff.stderr.trim()}`);
  return diff.stdout.split('\n').filter(Boolean);
}

/** `script` and the files under bench/ it imports, directly or not (relative imports, read by TypeScript's pre-processor). */
export function benchClosure(o: { root: string; script: string }): string[] {
  const seen = new Set<string>();
  const pending = [o.script];
  while (pending.length) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = fs.readFileSync(path.join(o.root, file), 'utf8');
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = path.posix.join(path.posix.dirname(file), fileName);
      const target = [`${base}.ts`, `${base}.js`, `${base}/index.ts`, base].find(
        (candidate) =>
          fs.existsSync(path.join(o.root, candidate)) && fs.statSync(path.join(o.root, candidate)).isFile(),
      );
      if (target?.startsWith('bench/')) pending.push(target);
    }
  }
  return [...seen].sort();
}

/** The commit and dirtiness a result file records (at its top level, or under `run`). */
function recordedRun(result: unknown): { commit?: string; dirty?: boolean } {
  const object = (result ?? {}) as Record<string, unknown>;
  const run = (typeof object.run === 'object' && object.run ? object.run : object) as Record<string, unknown>;
  return {
    commit: typeof run.commit === 'string' ? run.commit : undefined,
    dirty: typeof run.dirty === 'boolean' ? run.dirty : undefined,
  };
}

/** Why one result file is stale, or undefined when it is current. */
function whyStale(o: { root: string; file: string; measured?: Measured; result: unknown }): string | undefined {
  if (!o.measured) return 'declares nothing it measures (add it to bench/measured.ts)';
  if (o.measured.frozen) return undefined;
  const { commit, dirty } = recordedRun(o.result);
  if (!commit || commit === 'unknown') return 'records no commit';
  if (dirty !== false) return `measured on a ${dirty ? 'dirty' : 'possibly dirty'} tree at ${commit.slice(0, 7)}`;
  const paths = [...new Set([...benchClosure({ root: o.root, script: o.measured.script }), ...o.measured.paths])];
  const changed = changedSince({ root: o.root, commit, paths });
  if (!changed) return `measured at ${commit.slice(0, 7)}, a commit this repository does not have`;
  if (!changed.length) return undefined;
  const shown = changed.slice(0, 4).join(', ');
  return `measured at ${commit.slice(0, 7)}; changed since: ${shown}${changed.length > 4 ? ` and ${changed.length - 4} more` : ''}`;
}

/** Every stale result file of `resultsDir` (relative to `root`), in file-name order. */
export function staleResults(o: { root: string; resultsDir?: string; measured?: Record<string, Measured> }): Stale[] {
  const dir = path.join(o.root, o.resultsDir ?? 'bench/results');
  const measured = o.measured ?? MEASURED;
  const stale: Stale[] = [];
  for (const file of fs
    .readdirSync(dir)
    // *.tmp.json: a run's per-item details for error analysis, never committed and not a result.
    .filter((name) => name.endsWith('.json') && !name.endsWith('.tmp.json'))
    .sort()) {
    const result: unknown = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const reason = whyStale({ root: o.root, file, measured: measured[file], result });
    if (reason) stale.push({ file, reason });
  }
  return stale;
}

if (require.main === module) {
  const stale = staleResults({ root: path.resolve(__dirname, '..') });
  for (const { file, reason } of stale) console.log(`bench/results/${file}: ${reason}`);
  process.exitCode = stale.length ? 1 : 0;
}
