import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';
import { before, describe, it } from 'mocha';

const ROOT = path.resolve(__dirname, '../..');
const CYCLE_RULE = 'local/no-import-cycle';
/** On disk: b.ts imports a.ts (types only), c.ts imports b.ts; a.ts imports nothing. */
const FIXTURES = 'test/fixtures/import-cycle';

/**
 * The cycle findings of the project's ESLint config (eslint.config.mjs) for `code` as the file `file` of the
 * fixtures. Fails on a parse error, so an unparsable snippet cannot pass as "nothing reported".
 */
async function cycleFindings(o: { eslint: ESLint; file: string; code: string }): Promise<string[]> {
  const [result] = await o.eslint.lintText(o.code, { filePath: path.join(ROOT, FIXTURES, o.file) });
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${o.file} did not parse`);
  return result.messages.filter((m) => m.ruleId === CYCLE_RULE).map((m) => m.message);
}

describe('lint: no import cycle (scripts/lint/no-import-cycle.mjs)', () => {
  let eslint: ESLint;
  before(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  /** Asserts that each import in `imports`, alone in `file`, is reported (or not) by the cycle rule. */
  async function expectFindings(o: { file: string; imports: string[]; reported: boolean }): Promise<void> {
    for (const line of o.imports) {
      const findings = await cycleFindings({ eslint, file: o.file, code: `${line}\n` });
      assert.equal(findings.length > 0, o.reported, `${o.file}: ${line} -> ${JSON.stringify(findings)}`);
    }
  }

  it('reports an import that closes a cycle, type-only imports and re-exports included', async () => {
    await expectFindings({
      file: 'a.ts',
      reported: true,
      imports: [
        "import type { B } from './b';",
        "import { type B } from './b';",
        "export type { B } from './b';",
        "import { c } from './c';",
        "export * from './c';",
        "import type { A } from './a';",
      ],
    });
  });

  it('names the modules of the cycle, shortest first', async () => {
    const [finding] = await cycleFindings({ eslint, file: 'a.ts', code: "import { c } from './c';\n" });
    const chain = ['a.ts', 'c.ts', 'b.ts', 'a.ts'].map((f) => path.join(FIXTURES, f)).join(' → ');
    assert.ok(finding.includes(chain), finding);
  });

  it('lets modules import without a cycle, and ignores packages', async () => {
    await expectFindings({
      file: 'c.ts',
      reported: false,
      imports: ["import type { B } from './b';", "import { A } from './a';", "import { Koa } from 'koa';"],
    });
    await expectFindings({
      file: 'a.ts',
      reported: false,
      imports: ["import { x } from '../../../domain/failures';", "import { y } from './missing';"],
    });
  });
});
