import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'mocha';
import { MEASURED, type Measured } from '../../bench/measured';
import { benchClosure, staleResults } from '../../bench/stale';

const ROOT = path.resolve(__dirname, '../..');

describe('bench:stale (bench/stale.ts, bench/measured.ts)', () => {
  it('declares what every committed result file measures, with paths that exist', () => {
    const results = fs.readdirSync(path.join(ROOT, 'bench/results')).filter((f) => f.endsWith('.json'));
    for (const file of results) assert.ok(MEASURED[file], `${file} is not in bench/measured.ts`);
    for (const [file, measured] of Object.entries(MEASURED)) {
      assert.ok(results.includes(file), `bench/measured.ts names ${file}, which bench/results does not hold`);
      for (const p of [measured.script, ...measured.paths])
        assert.ok(fs.existsSync(path.join(ROOT, p)), `${file}: ${p}`);
    }
  });

  it("counts a benchmark's bench/lib imports as measured, and nothing outside bench/", () => {
    const closure = benchClosure({ root: ROOT, script: 'bench/language.ts' });
    assert.ok(closure.includes('bench/language.ts'));
    assert.ok(closure.includes('bench/lib/run-info.ts'));
    assert.ok(
      closure.every((file) => file.startsWith('bench/')),
      closure.join(', '),
    );
  });

  describe('in a repository of its own', () => {
    let root: string;
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: root,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      }).trim();
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    };
    const measured: Record<string, Measured> = {
      'a.json': { script: 'bench/a.ts', paths: ['domain/a/'] },
      'old.json': { script: 'bench/a.ts', paths: [], frozen: 'a record of before' },
    };
    const result = (o: { commit?: string; dirty?: boolean }) => JSON.stringify({ figure: 1, ...o });

    beforeEach(() => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-stale-'));
      git('init', '-q');
      write('bench/a.ts', "import { x } from './lib/x';\nimport { y } from '../domain/b/y';\n");
      write('bench/lib/x.ts', 'export const x = 1;\n');
      write('domain/a/code.ts', 'export const a = 1;\n');
      write('domain/b/y.ts', 'export const y = 1;\n');
      git('add', '-A');
      git('commit', '-qm', 'first');
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    const stale = () => staleResults({ root, resultsDir: 'results', measured });

    it('prints nothing for a result measured clean at a commit whose measured code is current', () => {
      write('results/a.json', result({ commit: git('rev-parse', 'HEAD'), dirty: false }));
      write('domain/b/y.ts', 'export const y = 2;\n'); // imported by the script, but not bench/ nor declared
      assert.deepEqual(stale(), []);
    });

    it('lists a result whose declared paths or bench/lib imports changed since, committed or not', () => {
      write('results/a.json', result({ commit: git('rev-parse', 'HEAD'), dirty: false }));
      write('domain/a/code.ts', 'export const a = 2;\n');
      assert.match(stale()[0]?.reason ?? '', /changed since: domain\/a\/code\.ts/);
      git('checkout', '-q', '--', 'domain');
      write('bench/lib/x.ts', 'export const x = 2;\n');
      git('commit', '-qam', 'harness');
      assert.match(stale()[0]?.reason ?? '', /changed since: bench\/lib\/x\.ts/);
    });

    it('lists a result of a dirty tree, without a commit, or of an unknown commit, and one not declared', () => {
      const head = git('rev-parse', 'HEAD');
      write('results/a.json', result({ commit: head, dirty: true }));
      write('results/b.json', result({ commit: head, dirty: false }));
      assert.deepEqual(
        stale().map((s) => s.file),
        ['a.json', 'b.json'],
      );
      assert.match(stale()[1].reason, /declares nothing/);
      write('results/a.json', JSON.stringify({ run: { dirty: false } }));
      assert.match(stale()[0].reason, /no commit/);
      write('results/a.json', result({ commit: 'f'.repeat(40), dirty: false }));
      assert.match(stale()[0].reason, /does not have/);
    });

    it("ignores a run's uncommitted details file (*.tmp.json)", () => {
      write('results/a-details.tmp.json', JSON.stringify([{ id: 1 }]));
      assert.deepEqual(stale(), []);
    });

    it('never lists a frozen record', () => {
      write('results/old.json', result({ commit: 'f'.repeat(40), dirty: true }));
      assert.deepEqual(stale(), []);
    });
  });
});
