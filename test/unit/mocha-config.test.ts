import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';

const ROOT = path.resolve(__dirname, '../..');
const MOCHA = require.resolve('mocha/bin/mocha.js');

/** Runs mocha from the repository root with `args` (its own spec files left out), as CI would. */
function mocha(args: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [MOCHA, '--ignore', 'test/**', '--reporter', 'dot', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('mocha: a left-over .only fails the suites CI runs', () => {
  let dir: string;
  let onlyFile: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forbid-only-'));
    onlyFile = path.join(dir, 'only.test.js');
    fs.writeFileSync(onlyFile, "it.only('left over', () => {});\nit('skipped by the only', () => {});\n");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs a file with .only when no configuration forbids it (the control)', () => {
    const run = mocha(['--no-config', onlyFile]);
    assert.equal(run.status, 0, run.output);
  });

  for (const config of ['.mocharc.json', '.mocharc.unit.json']) {
    it(`refuses it under ${config}`, () => {
      const run = mocha(['--config', config, onlyFile]);
      assert.notEqual(run.status, 0, run.output);
      assert.match(run.output, /ERR_MOCHA_FORBIDDEN_EXCLUSIVITY/);
    });
  }
});
