/**
 * The alert rules (ops/prometheus/alerts.yml) with the real promtool: they load (`promtool check
 * rules`), and their unit tests pass (`promtool test rules` on ops/prometheus/alerts.test.yml and
 * alerts-minutes.test.yml), which must hold, for every alert, a case where it fires and one where
 * it stays quiet. Every alert
 * carries what an operator needs: severity, cause or symptom, summary, description and a runbook
 * that is a section of docs/operations.md.
 */
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { before, describe, it } from 'mocha';
import { parse } from 'yaml';
import { ALERT_RULES_FILE } from '../../scripts/stack/prometheus-config';
import { ensurePromtool } from '../../scripts/stack/provision-observability';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..', '..');
const TEST_FILES = ['alerts.test.yml', 'alerts-minutes.test.yml'].map((f) => path.join(root, 'ops', 'prometheus', f));

interface Rule {
  alert?: string;
  record?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleTest {
  alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[];
}

const groups = (parse(fs.readFileSync(ALERT_RULES_FILE, 'utf8')) as { groups: { rules: Rule[] }[] }).groups;
const alerts = groups.flatMap((g) => g.rules).filter((r): r is Rule & { alert: string } => Boolean(r.alert));
const alertNames = [...new Set(alerts.map((a) => a.alert))];

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

describe('alert rules (ops/prometheus/alerts.yml)', function () {
  // The first run fetches Prometheus's Debian package (seconds); later ones find it in the cache.
  this.timeout(120_000);
  let promtool: string;

  before(async () => {
    promtool = await ensurePromtool();
  });

  it('load in Prometheus (promtool check rules)', async () => {
    const { stdout } = await run(promtool, ['check', 'rules', ALERT_RULES_FILE]);
    assert.match(stdout, /SUCCESS: \d+ rules found/);
  });

  it('pass their unit tests (promtool test rules)', async () => {
    const result = await run(promtool, ['test', 'rules', ...TEST_FILES]).catch(
      (err: { stdout?: string; stderr?: string }) => assert.fail(`${err.stdout ?? ''}${err.stderr ?? ''}`),
    );
    assert.equal(result.stdout.match(/^ {2}SUCCESS$/gm)?.length, TEST_FILES.length, result.stdout);
  });

  it('have, each, a test case where it fires and one where it stays quiet', () => {
    const cases = TEST_FILES.flatMap((file) =>
      (parse(fs.readFileSync(file, 'utf8')) as { tests: RuleTest[] }).tests.flatMap((t) => t.alert_rule_test ?? []),
    );
    assert.ok(alertNames.length >= 13, alertNames.join(', '));
    for (const name of alertNames) {
      const own = cases.filter((c) => c.alertname === name);
      assert.ok(
        own.some((c) => (c.exp_alerts ?? []).length > 0),
        `${name} has no case where it fires`,
      );
      assert.ok(
        own.some((c) => (c.exp_alerts ?? []).length === 0),
        `${name} has no case where it stays quiet`,
      );
    }
  });

  it('say how urgent they are, whether they name a cause, and link a runbook section of docs/operations.md', () => {
    const operations = fs.readFileSync(path.join(root, 'docs', 'operations.md'), 'utf8');
    const sections = new Set([...operations.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1])));
    for (const rule of alerts) {
      const what = `${rule.alert} (${rule.labels?.severity})`;
      assert.match(rule.labels?.severity ?? '', /^(page|ticket)$/, `${what}: severity`);
      assert.match(rule.labels?.kind ?? '', /^(cause|symptom)$/, `${what}: kind`);
      assert.ok(rule.annotations?.summary && rule.annotations.description, `${what}: summary and description`);
      const runbook = /^docs\/operations\.md#([\w-]+)$/.exec(rule.annotations?.runbook ?? '');
      assert.ok(runbook, `${what}: runbook ${rule.annotations?.runbook}`);
      assert.ok(sections.has(runbook[1]), `${what}: docs/operations.md has no section #${runbook[1]}`);
      assert.equal(runbook[1], rule.alert.toLowerCase(), `${what}: the runbook section is named after the alert`);
    }
  });
});
