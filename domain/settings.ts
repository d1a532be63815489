/**
 * Settings from the environment, declared as tables and checked at once. Each process (the API,
 * the worker) parses its whole table when it starts and refuses to start on any bad value, naming
 * the variable and the rule it breaks: `API_PORT must be an integer from 0 to 65535, got "abc"`.
 * The tables themselves are in domain/config.ts (both processes), api/config.ts and
 * worker/config.ts; the README's settings tables list the same names and defaults
 * (test/unit/config.test.ts checks).
 */

/** What a value may be; `rule` reads after "must be" in the error. */
export type SettingKind =
  | { kind: 'int'; min: number; max: number }
  | { kind: 'number'; min: number; max: number }
  | { kind: 'choice'; choices: readonly string[] }
  | { kind: 'url' }
  | { kind: 'text' };

/** One variable: its rule, its default (none: the value is undefined when unset) and what it is for. */
export type Setting<T, D extends T | undefined = T | undefined> = SettingKind & {
  rule: string;
  default: D;
  doc: string;
  /** The value of a raw string that follows the rule, or undefined when it breaks it. */
  parse(raw: string): T | undefined;
};

export type SettingsTable = Record<string, Setting<unknown>>;

/** The typed values of a table: a setting without a default may be undefined. */
export type SettingValues<S extends SettingsTable> = {
  [K in keyof S]: S[K] extends Setting<infer T, infer D> ? Exclude<T, undefined> | D : never;
};

/** The environment holds a value that breaks its setting's rule; `problems` has one line per variable. */
export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'SettingsError';
  }
}

/** The largest delay Node's timers take; a longer one fires at once (setTimeout's TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

interface Declared<D> {
  default?: D;
  doc: string;
}

/** An integer from `min` (1 unless given) to `max`. */
export function int<D extends number | undefined = undefined>(
  o: Declared<D> & { min?: number; max?: number },
): Setting<number, D> {
  const min = o.min ?? 1;
  const max = o.max ?? Number.MAX_SAFE_INTEGER;
  return {
    kind: 'int',
    min,
    max,
    rule: max === Number.MAX_SAFE_INTEGER && min === 1 ? 'a positive integer' : `an integer from ${min} to ${max}`,
    default: o.default as D,
    doc: o.doc,
    parse: (raw) => {
      const value = Number(raw);
      return /^[-+]?\d+$/.test(raw.trim()) && value >= min && value <= max ? value : undefined;
    },
  };
}

/** Milliseconds: an integer from 1 to what a timer can wait. */
export const ms = <D extends number | undefined = undefined>(o: Declared<D>) => int({ ...o, max: MAX_TIMER_MS });

/** A TCP port; `min: 0` lets the system choose one (tests do). */
export const port = <D extends number | undefined = undefined>(o: Declared<D> & { min?: number }) =>
  int({ min: 1, ...o, max: 65_535 });

/** A finite number from `min` to `max`. */
export function num<D extends number | undefined = undefined>(
  o: Declared<D> & { min: number; max: number },
): Setting<number, D> {
  return {
    kind: 'number',
    min: o.min,
    max: o.max,
    rule: `a number from ${o.min} to ${o.max}`,
    default: o.default as D,
    doc: o.doc,
    parse: (raw) => {
      const value = Number(raw);
      return raw.trim() !== '' && Number.isFinite(value) && value >= o.min && value <= o.max ? value : undefined;
    },
  };
}

/** One of `choices`, spelled exactly. */
export function oneOf<const C extends readonly string[], D extends C[number] | undefined = undefined>(
  choices: C,
  o: Declared<D>,
): Setting<C[number], D> {
  return {
    kind: 'choice',
    choices,
    rule: `one of ${choices.join(', ')}`,
    default: o.default as D,
    doc: o.doc,
    parse: (raw) => (choices.includes(raw) ? raw : undefined),
  };
}

/** `true` or `false`. */
export function flag<D extends boolean | undefined = undefined>(o: Declared<D>): Setting<boolean, D> {
  return {
    kind: 'choice',
    choices: ['true', 'false'],
    rule: 'true or false',
    default: o.default as D,
    doc: o.doc,
    parse: (raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined),
  };
}

/** An absolute http or https URL. */
export function url<D extends string | undefined = undefined>(o: Declared<D>): Setting<string, D> {
  return {
    kind: 'url',
    rule: 'an http or https URL',
    default: o.default as D,
    doc: o.doc,
    parse: (raw) => {
      try {
        return ['http:', 'https:'].includes(new URL(raw).protocol) ? raw : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** Any text (a name, a key, an address). */
export function text<D extends string | undefined = undefined>(o: Declared<D>): Setting<string, D> {
  return { kind: 'text', rule: 'text', default: o.default as D, doc: o.doc, parse: (raw) => raw };
}

/** The raw value as an error quotes it: JSON-escaped, and cut short. */
const quoted = (raw: string) => JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);

/**
 * The values of every setting of `table` from `env`: an unset or empty variable takes its default.
 * Throws a SettingsError naming every variable that breaks its rule, so one start shows them all.
 */
export function parseSettings<S extends SettingsTable>(table: S, env: NodeJS.ProcessEnv): SettingValues<S> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, setting] of Object.entries(table)) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      values[name] = setting.default;
      continue;
    }
    const value = setting.parse(raw);
    if (value === undefined) problems.push(`${name} must be ${setting.rule}, got ${quoted(raw)}`);
    values[name] = value;
  }
  if (problems.length > 0) throw new SettingsError(problems);
  return values as SettingValues<S>;
}
