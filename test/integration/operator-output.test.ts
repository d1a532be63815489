import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'mocha';
import { evalBatchProgress, startEvalBatch } from '../../scripts/eval-batches';
import { article } from '../helpers/factories';
import { api, createKey, freshTenant, getHarness } from '../helpers/harness';
import { runScriptAsync } from '../helpers/run-script';

/** An escape sequence that sets the window title and clears the screen, a BEL, DEL and a C1 CSI. */
const HOSTILE = 'x \u001b]0;pwned\u0007\u001b[2J\u007f \u009b31m end';
/** Any control character but the newline, which the commands' layout uses between fields. */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('operator commands print tenant text with its control characters escaped', () => {
  describe('npm run feedback', () => {
    let tenant: string;
    let answerId: string;

    before(async function () {
      this.timeout(120_000);
      const created = await createKey();
      tenant = created.tenant;
      const upload = await api('POST', '/v1/articles', {
        key: created.key,
        body: { articles: [article({ articleId: 'reset' })] },
      });
      assert.equal(upload.status, 200, JSON.stringify(upload.body));
      const asked = await api('POST', '/v1/assistant/ask', {
        key: created.key,
        body: { query: `How do I reset my password? ${HOSTILE}` },
      });
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      answerId = asked.body.id;
      const sent = await api('POST', '/v1/feedback', {
        key: created.key,
        body: { id: answerId, feedbackDetails: `not helpful\n${HOSTILE}` },
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
    });

    it('escapes them in its lines, each field staying on its line', async () => {
      const out = await runScriptAsync({}, 'scripts/feedback.ts', '--tenant', tenant);
      assert.equal(out.code, 0, out.stderr);
      assert.doesNotMatch(out.stdout, RAW_CONTROL);
      assert.match(
        out.stdout,
        /^ {2}Q: How do I reset my password\? x \\x1b\]0;pwned\\x07\\x1b\[2J\\x7f \\x9b31m end$/m,
      );
      assert.match(out.stdout, /^ {2}feedback -1 \S+: not helpful x \\x1b\]0;pwned\\x07\\x1b\[2J\\x7f \\x9b31m end$/m);
    });

    it('escapes them in --json too, DEL and C1 as \\u escapes, and the JSON reads back the same', async () => {
      const out = await runScriptAsync({}, 'scripts/feedback.ts', '--tenant', tenant, '--json');
      assert.equal(out.code, 0, out.stderr);
      assert.doesNotMatch(out.stdout, RAW_CONTROL);
      assert.match(out.stdout, /\\u007f \\u009b31m end/);
      const [listed] = out.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(listed.answerId, answerId);
      assert.equal(listed.question, `How do I reset my password? ${HOSTILE}`);
    });
  });

  describe('npm run eval:report', () => {
    it('escapes them in the markdown: models, record ids and rule explanations', async function () {
      this.timeout(120_000);
      const h = await getHarness();
      const tenant = freshTenant('report-controls');
      const dir = fs.mkdtempSync(path.join(process.env.SUPPORT_AI_TEST_DATA ?? os.tmpdir(), 'report-controls-'));
      const file = path.join(dir, 'calls.jsonl');
      const lines = [0, 1].map((i) =>
        JSON.stringify({
          id: `r-${i}-${HOSTILE}`,
          messages: [{ role: 'user', content: `How do I change my address? ${HOSTILE}` }],
          // An email address in the output: a critical failure, listed with its record id and explanation.
          output: `Write to help@example.com ${HOSTILE}`,
          model: `model ${HOSTILE}`,
        }),
      );
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const { workflowId } = await startEvalBatch({ client: h.temporal, taskQueue: h.taskQueue, tenant, path: file });
      while (!(await evalBatchProgress({ client: h.temporal, workflowId })).done) await sleep(200);
      const out = await runScriptAsync(
        {},
        'scripts/eval-report.ts',
        '--tenant',
        tenant,
        '--html',
        path.join(dir, 'report.html'),
      );
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, /2 graded calls/);
      assert.doesNotMatch(out.stdout, RAW_CONTROL);
      // Markdown escapes `[` and `]` as well.
      const shown = 'x \\\\x1b\\\\\\]0;pwned\\\\x07\\\\x1b\\\\\\[2J\\\\x7f \\\\x9b31m end';
      assert.match(out.stdout, new RegExp(`- \\*\\*model ${shown}\\*\\*: 2 critical failures`));
      assert.match(out.stdout, new RegExp(`^ {2}- r-0-${shown}, no-email-addresses: `, 'm'));
    });
  });
});
