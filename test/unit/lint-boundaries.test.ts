import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';
import { before, describe, it } from 'mocha';

const ROOT = path.resolve(__dirname, '../..');
const BOUNDARY_RULE = '@typescript-eslint/no-restricted-imports';

/**
 * The boundary findings of the project's ESLint config (eslint.config.mjs) for `code` as if it were the file at
 * `file` (relative to the root; it need not exist). Fails on a parse error, so an unparsable snippet cannot pass
 * as "nothing reported".
 */
async function boundaryFindings(o: { eslint: ESLint; file: string; code: string }): Promise<string[]> {
  const [result] = await o.eslint.lintText(o.code, { filePath: path.join(ROOT, o.file) });
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${o.file} did not parse`);
  return result.messages.filter((m) => m.ruleId === BOUNDARY_RULE).map((m) => m.message);
}

describe('lint: import boundaries (README, "Layout")', () => {
  let eslint: ESLint;
  before(() => {
    // The snippets are linted as files that do not exist, which the type-aware rules of the source folders cannot
    // read (no program has them): those rules are off here, the boundaries are syntax rules.
    eslint = new ESLint({
      cwd: ROOT,
      overrideConfig: {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { projectService: false } },
        rules: { '@typescript-eslint/no-floating-promises': 'off' },
      },
    });
  });

  /** Asserts that each import in `imports`, alone in `file`, is reported (or not) by the boundary rule. */
  async function expectFindings(o: { file: string; imports: string[]; reported: boolean }): Promise<void> {
    for (const line of o.imports) {
      const findings = await boundaryFindings({ eslint, file: o.file, code: `${line}\n` });
      assert.equal(findings.length > 0, o.reported, `${o.file}: ${line} -> ${JSON.stringify(findings)}`);
    }
  }

  it('reports the domain importing api/, activities/, workflows/ or worker/, types included', async () => {
    await expectFindings({
      file: 'domain/x.ts',
      reported: true,
      imports: [
        "import { x } from '../api/app';",
        "import type { x } from '../api/app';",
        "import { x } from '../activities';",
        "import { x } from '../workflows/constants';",
        "import { x } from '../worker/deps';",
      ],
    });
    await expectFindings({
      file: 'domain/weaviate/x.ts',
      reported: true,
      imports: ["import { x } from '../../api/errors';", "export { x } from '../../workflows';"],
    });
  });

  it('lets the domain import itself and packages', async () => {
    await expectFindings({
      file: 'domain/weaviate/x.ts',
      reported: false,
      imports: [
        "import { x } from '../failures';",
        "import { x } from './client';",
        "import { x } from 'weaviate-client';",
        "import { ApplicationFailure } from '@temporalio/common';",
      ],
    });
  });

  it('reports the domain importing Temporal packages other than @temporalio/common, types included', async () => {
    await expectFindings({
      file: 'domain/weaviate/x.ts',
      reported: true,
      imports: [
        "import { heartbeat } from '@temporalio/activity';",
        "import { Context } from '@temporalio/activity';",
        "import type { Client } from '@temporalio/client';",
        "import { proxyActivities } from '@temporalio/workflow';",
        "import { Worker } from '@temporalio/worker';",
        "import { x } from '@temporalio/common/lib/failure';",
      ],
    });
  });

  it('reports workflows importing values from domain/ or activities/, and lets them import types', async () => {
    await expectFindings({
      file: 'workflows/x.ts',
      reported: true,
      imports: [
        "import { x } from '../domain/evaluation/batch-counts';",
        "import { x, type y } from '../domain/evaluation/batch';",
        "import { x } from '../activities';",
      ],
    });
    await expectFindings({
      file: 'workflows/x.ts',
      reported: false,
      imports: [
        "import type { x } from '../domain/evaluation/batch-counts';",
        "import { type x } from '../domain/evaluation/batch';",
        "import type { x } from '../activities';",
      ],
    });
  });

  it('reports workflows importing Node built-ins (types too), other packages or the API', async () => {
    await expectFindings({
      file: 'workflows/x.ts',
      reported: true,
      imports: [
        "import { x } from 'node:fs';",
        "import { x } from 'crypto';",
        "import type { x } from 'stream';",
        "import { x } from '@temporalio/client';",
        "import { x } from '@temporalio/interceptors-opentelemetry';",
        "import { x } from 'weaviate-client';",
        "import type { x } from '../api/app';",
      ],
    });
  });

  it('lets workflows import values from workflows/ and the Temporal workflow packages', async () => {
    await expectFindings({
      file: 'workflows/x.ts',
      reported: false,
      imports: [
        "import { x } from './proxies';",
        "import { x } from '@temporalio/workflow';",
        "import { x } from '@temporalio/common';",
        "import { x } from '@temporalio/interceptors-opentelemetry/lib/workflow';",
      ],
    });
  });

  it('reports activities importing anything but domain/, and the API importing activities/', async () => {
    await expectFindings({
      file: 'activities/x.ts',
      reported: true,
      imports: ["import { x } from '../workflows/constants';", "import { x } from '../api/app';"],
    });
    await expectFindings({
      file: 'activities/x.ts',
      reported: false,
      imports: ["import { x } from '../domain/failures';"],
    });
    await expectFindings({
      file: 'api/routes/x.ts',
      reported: true,
      imports: ["import { x } from '../../activities';"],
    });
    await expectFindings({
      file: 'api/routes/x.ts',
      reported: false,
      imports: ["import { x } from '../../domain/failures';", "import { x } from '../../workflows';"],
    });
  });
});
