/**
 * Use cases of evaluation: named sets of rules plus settings, in YAML files that operators edit
 * and keep under version control. `<dir>/<name>.yaml` are shared by every tenant;
 * `<dir>/tenants/<tenant>/<name>.yaml` override them for one tenant. Each file is validated when
 * it is read, and an error names the file, the line and the field. Files are re-read when they
 * change (checked at most every `RELOAD_CHECK_MS`), so edits apply without a restart; a file that
 * became invalid keeps failing its use case (with its error) rather than silently serving the old
 * rules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isNode, LineCounter, parseDocument } from 'yaml';
import { compile, configAjv, formatAjvError } from '../contracts/ajv';
import { NAME_PATTERN } from '../contracts/common';
import { type Rule, RuleSchema, MAX_RULES } from '../contracts/evaluation';
import { TENANT_PATTERN } from '../weaviate/collections';

/** Days results are kept when a use case does not say (and for results of a use case since removed). */
export const DEFAULT_RETENTION_DAYS = 30;

export const UseCaseFileSchema = {
  type: 'object',
  required: ['rules'],
  additionalProperties: false,
  properties: {
    description: { type: 'string', maxLength: 2000 },
    rules: { type: 'array', items: { $ref: 'Rule' }, minItems: 1, maxItems: MAX_RULES },
    logging: {
      type: 'object',
      additionalProperties: false,
      properties: { retention_days: { type: 'integer', minimum: 1, maximum: 3650, default: DEFAULT_RETENTION_DAYS } },
      default: {},
    },
  },
} as const;

export interface UseCase {
  name: string;
  description?: string;
  rules: Rule[];
  logging: { retention_days: number };
  /** The file it came from, relative to the use-case folder. */
  file: string;
}

/** A use-case file that cannot be used: its message names the file, the line and the field. */
export class UseCaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UseCaseError';
  }
}

const validateFile = compile<Omit<UseCase, 'name' | 'file'>>(configAjv, UseCaseFileSchema, [RuleSchema]);

/** Use-case names are file names: letters, digits, `_` and `-` (the pattern of `use_case`). */
export const USE_CASE_NAME = new RegExp(NAME_PATTERN);

/** Parses and validates one use-case file's text. */
export function parseUseCase(o: { name: string; file: string; text: string }): UseCase {
  const lineCounter = new LineCounter();
  const doc = parseDocument(o.text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  /** Where a node of the YAML document starts (an offset), when it is one and has a position. */
  const startOf = (node: unknown) => (isNode(node) ? node.range?.[0] : undefined);
  const at = (offset: number | undefined) => (offset === undefined ? '' : `:${lineCounter.linePos(offset).line}`);
  if (doc.errors.length > 0) {
    const [err] = doc.errors;
    throw new UseCaseError(`${o.file}${at(err.pos[0])}: not valid YAML: ${err.message.split('\n')[0]}`);
  }
  const value = doc.toJS({ maxAliasCount: 100 }) ?? {};
  if (!validateFile(value)) {
    const [err] = validateFile.errors!;
    const pathParts = err.instancePath
      .split('/')
      .slice(1)
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
    // The closest node that exists: the field itself, or the object that lacks it.
    let start: number | undefined;
    for (let n = pathParts.length; n >= 0 && start === undefined; n--)
      start = startOf(n === 0 ? doc.contents : doc.getIn(pathParts.slice(0, n), true));
    throw new UseCaseError(`${o.file}${at(start)}: ${formatAjvError(err, '')}`);
  }
  const ids = new Set<string>();
  value.rules.forEach((rule, i) => {
    if (ids.has(rule.id))
      throw new UseCaseError(
        `${o.file}${at(startOf(doc.getIn(['rules', i, 'id'], true)))}: /rules/${i}/id repeats the rule id "${rule.id}"`,
      );
    ids.add(rule.id);
  });
  return {
    name: o.name,
    file: o.file,
    description: value.description,
    rules: value.rules,
    logging: value.logging as UseCase['logging'],
  };
}

/** The use cases shipped with the service; `USE_CASES_DIR` points elsewhere. */
export const DEFAULT_USE_CASES_DIR = path.resolve(__dirname, '..', '..', 'use-cases');

/** The folder of the use cases: USE_CASES_DIR's when set (relative to the working directory), else the shipped one. */
export const useCasesFolder = (setting: string | undefined): string =>
  setting ? path.resolve(setting) : DEFAULT_USE_CASES_DIR;

/** How often a folder's files are checked for changes. */
export const RELOAD_CHECK_MS = 2000;

interface Cached {
  mtimeMs: number;
  size: number;
  result: UseCase | UseCaseError;
}

/** The use cases of a folder, re-read when their files change. */
export class UseCaseStore {
  private readonly cache = new Map<string, Cached>();
  private readonly checked = new Map<string, number>();

  constructor(readonly dir: string) {}

  private candidates(name: string, tenant?: string): string[] {
    const shared = path.join(this.dir, `${name}.yaml`);
    return tenant && TENANT_PATTERN.test(tenant)
      ? [path.join(this.dir, 'tenants', tenant, `${name}.yaml`), shared]
      : [shared];
  }

  private read(file: string, name: string): UseCase | UseCaseError | undefined {
    const now = Date.now();
    const cached = this.cache.get(file);
    if (cached && now - (this.checked.get(file) ?? 0) < RELOAD_CHECK_MS) return cached.result;
    this.checked.set(file, now);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      this.cache.delete(file);
      return undefined;
    }
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.result;
    const relative = path.relative(this.dir, file);
    let result: UseCase | UseCaseError;
    try {
      result = parseUseCase({ name, file: relative, text: fs.readFileSync(file, 'utf8') });
    } catch (err) {
      result = err instanceof UseCaseError ? err : new UseCaseError(`${relative}: cannot be read`);
    }
    this.cache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, result });
    return result;
  }

  /**
   * The use case `name` for `tenant`: the tenant's own file, else the shared one; undefined when
   * neither exists. Throws UseCaseError when the file that applies is invalid.
   */
  get(name: string, tenant?: string): UseCase | undefined {
    if (!USE_CASE_NAME.test(name)) return undefined;
    for (const file of this.candidates(name, tenant)) {
      const found = this.read(file, name);
      if (found instanceof UseCaseError) throw found;
      if (found) return found;
    }
    return undefined;
  }

  /** Every file below the folder, validated: the API logs the invalid ones when it starts. */
  checkAll(): { file: string; error?: string }[] {
    const files: string[] = [];
    const walk = (dir: string) => {
      if (!fs.existsSync(dir)) return;
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.yaml')) files.push(full);
      }
    };
    walk(this.dir);
    return files.sort().map((file) => {
      const relative = path.relative(this.dir, file);
      try {
        parseUseCase({ name: path.basename(file, '.yaml'), file: relative, text: fs.readFileSync(file, 'utf8') });
        return { file: relative };
      } catch (err) {
        return { file: relative, error: (err as Error).message };
      }
    });
  }
}
