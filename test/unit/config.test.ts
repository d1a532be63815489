/**
 * The settings of the API and the worker (domain/settings.ts; the tables in domain/config.ts,
 * api/config.ts and worker/config.ts): every setting's rule refuses a bad value naming the variable,
 * every unset setting takes its default, the README's settings tables list the same names and
 * defaults, and the real processes refuse to start on a bad value.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_LIMITS } from '../../api/app-deps';
import { API_SETTINGS, loadApiConfig } from '../../api/config';
import { DEFAULT_MAX_TOKENS, loadServicesConfig, SERVICE_SETTINGS } from '../../domain/config';
import { parseSettings, type Setting, SettingsError } from '../../domain/settings';
import { loadWorkerConfig, WORKER_SETTINGS } from '../../worker/config';

const ROOT = path.resolve(__dirname, '../..');

/** Each setting with the loader of a process that reads it. */
const ALL: { name: string; setting: Setting<unknown>; load: (env: NodeJS.ProcessEnv) => unknown }[] = [
  ...Object.entries(SERVICE_SETTINGS).map(([name, setting]) => ({ name, setting, load: loadApiConfig })),
  ...Object.entries(SERVICE_SETTINGS).map(([name, setting]) => ({ name, setting, load: loadWorkerConfig })),
  ...Object.entries(API_SETTINGS).map(([name, setting]) => ({ name, setting, load: loadApiConfig })),
  ...Object.entries(WORKER_SETTINGS).map(([name, setting]) => ({ name, setting, load: loadWorkerConfig })),
];

/** Values that break a setting's rule: none for free text. */
function badValues(s: Setting<unknown>): string[] {
  switch (s.kind) {
    case 'int':
      return [
        'abc',
        '1.5',
        '1e3',
        ' ',
        String(s.min - 1),
        ...(s.max < Number.MAX_SAFE_INTEGER ? [String(s.max + 1)] : []),
      ];
    case 'number':
      return ['abc', 'Infinity', String(s.min - 1), String(s.max + 1)];
    case 'choice':
      return ['not-one-of-them', s.choices[0].toUpperCase() === s.choices[0] ? s.choices[0].toLowerCase() : 'TRUE'];
    case 'url':
      return ['not a url', 'ftp://example.com/v1', '127.0.0.1:8000'];
    case 'text':
      return [];
  }
}

/** Values that follow it. */
function goodValues(s: Setting<unknown>): string[] {
  switch (s.kind) {
    case 'int':
    case 'number':
      return [String(s.min), String(s.max)];
    case 'choice':
      return [...s.choices];
    case 'url':
      return ['http://10.0.0.5:8000/v1', 'https://api.openai.com/v1'];
    case 'text':
      return ['anything at all'];
  }
}

/** The SettingsError `load` throws for `env`, or a failure when it throws none. */
function refusal(load: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv): SettingsError {
  try {
    load(env);
  } catch (err) {
    assert.ok(err instanceof SettingsError, String(err));
    return err;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

describe('settings', () => {
  it('declares each variable once, across the services', () => {
    const names = [SERVICE_SETTINGS, API_SETTINGS, WORKER_SETTINGS].flatMap((table) => Object.keys(table));
    assert.deepEqual(
      names.filter((name, i) => names.indexOf(name) !== i),
      [],
    );
  });

  it('refuses a value that breaks any setting’s rule, naming the variable and the rule', () => {
    for (const { name, setting, load } of ALL) {
      if (setting.kind === 'text') continue;
      const bad = badValues(setting);
      assert.ok(bad.length > 0, name);
      for (const raw of bad) {
        const err = refusal(load, { [name]: raw });
        assert.deepEqual(err.problems, [`${name} must be ${setting.rule}, got ${JSON.stringify(raw)}`]);
      }
    }
  });

  it('accepts the values a rule allows, and any text for free text', () => {
    for (const { name, setting, load } of ALL) {
      for (const raw of goodValues(setting)) assert.doesNotThrow(() => load({ [name]: raw }), `${name}=${raw}`);
    }
  });

  it('takes each setting’s default when it is unset or empty', () => {
    for (const table of [SERVICE_SETTINGS, API_SETTINGS, WORKER_SETTINGS]) {
      for (const env of [{}, Object.fromEntries(Object.keys(table).map((name) => [name, '']))]) {
        const values = parseSettings(table, env) as Record<string, unknown>;
        for (const [name, setting] of Object.entries(table)) assert.equal(values[name], setting.default, name);
      }
    }
  });

  it('names every bad variable at once', () => {
    const err = refusal(loadApiConfig, { API_PORT: 'abc', KEY_CACHE_TTL_MS: '-5', TRUST_PROXY: 'yes' });
    assert.deepEqual(err.problems, [
      'API_PORT must be an integer from 0 to 65535, got "abc"',
      'KEY_CACHE_TTL_MS must be an integer from 1 to 2147483647, got "-5"',
      'TRUST_PROXY must be true or false, got "yes"',
    ]);
    assert.equal(err.message, err.problems.join('\n'));
  });

  it('builds the processes’ typed configuration from the defaults', () => {
    const api = loadApiConfig({});
    assert.equal(api.port, 3000);
    assert.equal(api.host, '127.0.0.1');
    assert.deepEqual(api.limits, { ...DEFAULT_LIMITS, tokensPerTenantPerDay: undefined });
    // A twentieth of the per-key limit, unless set.
    assert.deepEqual(api.rateLimit, { syncMs: 2000, maxUnsynced: 30 });
    assert.equal(loadApiConfig({ RATE_LIMIT_PER_MINUTE: '100' }).rateLimit.maxUnsynced, 5);
    assert.equal(loadApiConfig({ RATE_LIMIT_MAX_UNSYNCED: '7' }).rateLimit.maxUnsynced, 7);
    assert.equal(api.eagerAsks, true);
    assert.equal(api.trustProxy, false);
    assert.equal(api.useCasesDir, undefined);
    const worker = loadWorkerConfig({});
    assert.deepEqual(worker.maxActivities, { main: 4, ingestion: 2, grading: 8 });
    assert.deepEqual(worker.cpu, { threads: 2, budgetMs: 30_000 });
    assert.deepEqual(worker.services, api.services);
    assert.deepEqual(worker.services, loadServicesConfig({}));
  });

  it('configures the chat model only with its URL or a key', () => {
    assert.equal(loadServicesConfig({}).chat, undefined);
    assert.equal(loadServicesConfig({ CHAT_MODEL: 'm' }).chat, undefined);
    assert.equal(loadServicesConfig({ OPENAI_API_KEY: 'sk' }).chat?.apiKey, 'sk');
    assert.equal(loadServicesConfig({ OPENAI_API_KEY: 'sk', CHAT_API_KEY: 'mine' }).chat?.apiKey, 'mine');
    const chat = loadServicesConfig({ CHAT_BASE_URL: 'http://127.0.0.1:8003/v1' }).chat!;
    assert.equal(chat.apiKey, 'local');
    assert.deepEqual(chat.maxTokens, DEFAULT_MAX_TOKENS);
  });
});

/** A README table: its header cells and rows of cells. */
interface Table {
  header: string[];
  rows: string[][];
}

function readmeTables(): Table[] {
  const tables: Table[] = [];
  let lines: string[] = [];
  const cells = (line: string) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((c) => c.trim());
  for (const line of [...fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n'), '']) {
    if (line.startsWith('|')) lines.push(line.trim());
    else if (lines.length > 0) {
      tables.push({ header: cells(lines[0]), rows: lines.slice(2).map(cells) });
      lines = [];
    }
  }
  return tables;
}

/** The variables a row names at the start of a cell: `A`, `B` (a later `X` in the text is only mentioned). */
const leadingNames = (cell: string) =>
  [...(cell.match(/^(`[A-Z][A-Z0-9_]*`(, )?)+/)?.[0].matchAll(/`([A-Z0-9_]+)`/g) ?? [])].map((m) => m[1]);

/** A default cell's text as a value: `` `600` `` and `600` read 600; anything else (prose) is no literal. */
const literal = (cell: string) => (/^(`[^`]*`|\d+)$/.test(cell) ? cell.replace(/`/g, '') : undefined);

describe('the README’s settings tables', () => {
  const documented = new Map<string, (string | undefined)[]>();
  /** Names in tables of the services' settings alone (Variable, Default, Meaning). */
  const settingsTableNames: string[] = [];
  for (const table of readmeTables()) {
    const nameCol = table.header.indexOf('Variable');
    if (nameCol < 0) continue;
    const defaultCol = table.header.findIndex((h) => h.startsWith('Default'));
    const onlySettings = table.header.join('|') === 'Variable|Default|Meaning';
    for (const row of table.rows) {
      const names = leadingNames(row[nameCol]);
      const defaults = defaultCol < 0 ? [] : row[defaultCol].split(/, (?=`|\d)/);
      if (defaultCol >= 0 && defaults.length > 1)
        assert.equal(defaults.length, names.length, `one default per variable: ${row[nameCol]}`);
      names.forEach((name, i) => {
        const cell = defaultCol < 0 ? undefined : (defaults[defaults.length > 1 ? i : 0] ?? '');
        documented.set(name, [...(documented.get(name) ?? []), cell]);
        if (onlySettings) settingsTableNames.push(name);
      });
    }
  }
  const declared = { ...SERVICE_SETTINGS, ...API_SETTINGS, ...WORKER_SETTINGS } as Record<string, Setting<unknown>>;

  it('list every setting, with its default', () => {
    for (const [name, setting] of Object.entries(declared)) {
      const cells = documented.get(name);
      assert.ok(cells, `${name} is in no README table`);
      for (const cell of cells) {
        if (cell === undefined) continue; // a table without defaults (the launcher's overrides)
        const text = literal(cell);
        if (setting.default === undefined) assert.equal(text, undefined, `${name}: README says ${cell}, it has none`);
        else assert.equal(text, String(setting.default), `${name}'s default in the README`);
      }
    }
  });

  it('list no setting the processes do not read', () => {
    assert.deepEqual(
      settingsTableNames.filter((name) => !(name in declared)),
      [],
    );
  });
});

describe('a process with a bad setting', function () {
  this.timeout(60_000);
  const run = (main: string, env: Record<string, string>) =>
    spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', main], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 50_000,
    });

  it('the API stops at start, naming the variable', () => {
    const out = run('api/server.ts', { API_PORT: 'abc' });
    assert.equal(out.status, 1, out.stderr);
    assert.match(out.stdout + out.stderr, /API_PORT must be an integer from 0 to 65535, got \\"abc\\"/);
  });

  it('the worker stops at start, naming the variable', () => {
    const out = run('worker/main.ts', { WORKER_MAX_ACTIVITIES: '0' });
    assert.equal(out.status, 1, out.stderr);
    assert.match(out.stdout + out.stderr, /WORKER_MAX_ACTIVITIES must be a positive integer, got \\"0\\"/);
  });
});
