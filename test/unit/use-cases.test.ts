import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import { DEFAULT_USE_CASES_DIR, parseUseCase, UseCaseError, UseCaseStore } from '../../domain/evaluation/use-cases';

const rule = (id: string, extra = '') =>
  `  - id: ${id}\n    description: The answer must not contain any commas.\n${extra}`;

describe('use cases', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'use-cases-'));
    fs.mkdirSync(path.join(dir, 'tenants', 'acme'), { recursive: true });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads rules with their defaults and the retention setting', () => {
    const useCase = parseUseCase({
      name: 'x',
      file: 'x.yaml',
      text: `logging:\n  retention_days: 7\nrules:\n${rule('a')}`,
    });
    assert.deepEqual(useCase.rules, [
      { id: 'a', description: 'The answer must not contain any commas.', category: 'Custom', severity: 'warning' },
    ]);
    assert.equal(useCase.logging.retention_days, 7);
    assert.equal(parseUseCase({ name: 'x', file: 'x.yaml', text: `rules:\n${rule('a')}` }).logging.retention_days, 30);
  });

  it('names the file, the line and the field of an error', () => {
    const cases: [string, RegExp][] = [
      [
        `rules:\n${rule('a')}${rule('b', '    severity: urgent\n')}`,
        /^bad\.yaml:6: \/rules\/1\/severity must be one of: critical, warning, info$/,
      ],
      [`rules:\n${rule('a')}  - description: no id\n`, /^bad\.yaml:4: \/rules\/1\/id is required$/],
      [`rules:\n${rule('a')}${rule('a')}`, /^bad\.yaml:4: \/rules\/1\/id repeats the rule id "a"$/],
      [`rules:\n${rule('a')}severty: high\n`, /^bad\.yaml:1: .*must NOT have additional properties/],
      [`rules: [\n`, /^bad\.yaml:\d+: not valid YAML/],
      [`logging:\n  retention_days: -1\nrules:\n${rule('a')}`, /^bad\.yaml:2: \/logging\/retention_days must be >= 1$/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseUseCase({ name: 'bad', file: 'bad.yaml', text }),
        (err: Error) => err instanceof UseCaseError && message.test(err.message),
        text,
      );
    }
  });

  it("prefers a tenant's own file, reloads a changed file without a restart, and reports a broken one", async () => {
    fs.writeFileSync(path.join(dir, 'support.yaml'), `rules:\n${rule('shared')}`);
    const store = new UseCaseStore(dir);
    assert.deepEqual(
      store.get('support', 'acme')?.rules.map((r) => r.id),
      ['shared'],
    );
    assert.equal(store.get('nope', 'acme'), undefined);
    assert.equal(store.get('../etc/passwd', 'acme'), undefined);
    fs.writeFileSync(path.join(dir, 'tenants', 'acme', 'support.yaml'), `rules:\n${rule('acme-only')}`);
    await new Promise((r) => setTimeout(r, 2100));
    assert.deepEqual(
      store.get('support', 'acme')?.rules.map((r) => r.id),
      ['acme-only'],
    );
    assert.deepEqual(
      store.get('support', 'other')?.rules.map((r) => r.id),
      ['shared'],
    );
    fs.writeFileSync(path.join(dir, 'tenants', 'acme', 'support.yaml'), 'rules: 5\n');
    await new Promise((r) => setTimeout(r, 2100));
    assert.throws(() => store.get('support', 'acme'), /tenants\/acme\/support\.yaml:1: \/rules must be array/);
    assert.deepEqual(
      store
        .checkAll()
        .filter((f) => f.error)
        .map((f) => f.file),
      [path.join('tenants', 'acme', 'support.yaml')],
    );
  });

  it('ships a valid default use case', () => {
    assert.deepEqual(
      new UseCaseStore(DEFAULT_USE_CASES_DIR).checkAll().filter((f) => f.error),
      [],
    );
    assert.ok(new UseCaseStore(DEFAULT_USE_CASES_DIR).get('default')!.rules.length >= 5);
  });
});
