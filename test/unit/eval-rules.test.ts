/**
 * `npm run eval:rules` (scripts/eval-rules.ts), run as the command runs it: on the default use case
 * and on a rules file with rules it cannot read, in text and in JSON; an argument it cannot read
 * exits 1 with the reason.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'mocha';
// The command table is plain JavaScript, read before node_modules exists.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { nodeArgs } = require('../../scripts/commands.js') as { nodeArgs: (c: string, a: string[]) => string[] };

const ROOT = path.resolve(__dirname, '../..');

function evalRules(...args: string[]) {
  const env = { ...process.env };
  delete env.USE_CASES_DIR;
  const out = spawnSync(process.execPath, nodeArgs('eval:rules', args), { cwd: ROOT, encoding: 'utf8', env });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

describe('npm run eval:rules', function () {
  this.timeout(60_000);

  it('reads every rule of the default use case, saying which it does not understand', () => {
    const out = evalRules();
    assert.equal(out.status, 0, out.stderr);
    assert.match(out.stdout, /^use case "default": 9 rules, 8 understood by the built-in judge/);
    assert.match(
      out.stdout,
      /✔ concise: The answer should contain less than 300 words\.\n {4}read as: The response has fewer than 300 words\./,
    );
    assert.match(out.stdout, /✘ polite: .*\n {4}not understood: /);
  });

  it('explains a rules file, with the closest family of a rule it cannot read', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eval-rules-')), 'rules.jsonl');
    fs.writeFileSync(
      file,
      [
        { id: 'short', description: 'Die Antwort darf höchstens 5 Sätze haben.' },
        { id: 'commas', description: 'Usa menos comas.' },
        { description: 'Sé amable con el cliente.' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const text = evalRules(file);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /3 rules, 1 understood/);
    assert.match(text.stdout, /✔ short: .*\n {4}read as: The response has at most 5 sentences\./);
    assert.match(
      text.stdout,
      /✘ commas: .*\n {4}not understood: .*\n {4}closest: no commas, for example: Do not use any commas\./,
    );
    assert.match(text.stdout, /✘ rule 3: Sé amable con el cliente\./);

    const json = evalRules(file, '--json');
    assert.equal(json.status, 0, json.stderr);
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; understood: boolean });
    assert.deepEqual(
      lines.map((l) => [l.id, l.understood]),
      [
        ['short', true],
        ['commas', false],
        ['rule 3', false],
      ],
    );
  });

  it('exits 1 naming what it could not read', () => {
    const out = evalRules('no-such-use-case');
    assert.equal(out.status, 1);
    assert.match(out.stderr, /"no-such-use-case" is neither a file nor a use case/);
  });
});
