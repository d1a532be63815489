/**
 * Reports of batch evaluation, computed in one pass over a tenant's results with bounded memory
 * (ReportBuilder: counters per model and rule, never the results themselves), so a tenant with a
 * million results gets its report. Per model: the calls graded, the mean correctness score, the
 * defect rate, latency p50/p95 (a DDSketch, within 1 % of the exact value), calls per day; per rule
 * the pass rate over the calls it applied to (not_applicable excluded) with a 95 % Wilson interval,
 * its pass rate per period (day, week, 4 weeks or 52 weeks, whichever keeps the chart readable),
 * the calls it could not grade, and the critical failures first. Each pair of models is compared
 * rule by rule with a significance test (report-stats.ts). Rendering: report-markdown.ts (the
 * terminal) and report-html.ts (a standalone page with charts).
 */
import { DDSketch } from '@datadog/sketches-js';
import type { ReportRow } from './results';
import { holm, twoProportionTest, wilson } from './report-stats';

export { wilson } from './report-stats';

export interface ReportScope {
  tenant: string;
  useCase?: string;
  /** Epoch ms, inclusive / exclusive. */
  from?: number;
  to?: number;
  /** Metadata conditions, all of which must hold (`key=value`, compared as text). */
  where: [string, string][];
}

export interface PeriodStat {
  /** First day of the period (UTC, YYYY-MM-DD); weeks start on Monday. */
  start: string;
  pass: number;
  fail: number;
  passRate: number | null;
  interval: [number, number] | null;
}

export interface RuleStat {
  ruleId: string;
  category: string;
  severity: string;
  pass: number;
  fail: number;
  notGradable: number;
  /** Pass rate over pass + fail, null when the rule never applied. */
  passRate: number | null;
  /** 95 % Wilson score interval of the pass rate. */
  interval: [number, number] | null;
  /** The pass rate per period, oldest first (periods where the rule applied). */
  series: PeriodStat[];
}

export interface CriticalFailure {
  recordId: string;
  ruleId: string;
  explanation: string;
}

export interface ModelReport {
  model: string;
  calls: number;
  correctnessMean: number;
  defectRate: number;
  notGradable: number;
  /** Latency of the calls that reported one (ms), or null when none did. */
  latency: { n: number; p50: number; p95: number } | null;
  /** Calls per day, over the days from the report's first call to its last. */
  callsPerDay: number;
  /** Calls per period, oldest first. */
  volume: { start: string; calls: number }[];
  rules: RuleStat[];
  criticalFailures: number;
  /** The first critical failures, newest first. */
  examples: CriticalFailure[];
}

/** One rule, two models: whose pass rate is higher, and whether that is more than chance. */
export interface Comparison {
  ruleId: string;
  severity: string;
  a: string;
  b: string;
  passRateA: number;
  passRateB: number;
  nA: number;
  nB: number;
  /** Two-sided p-value (two-proportion z-test), null when a sample is too small for the test. */
  p: number | null;
  /** Holm-adjusted over the rules of this pair of models. */
  pAdjusted: number | null;
  /** The model with the higher pass rate when pAdjusted < ALPHA, else null. */
  better: string | null;
}

export type Period = 'day' | 'week' | '4 weeks' | '52 weeks';

export interface EvalReport {
  scope: ReportScope;
  generatedAt: string;
  calls: number;
  /** Days from the first call to the last, both included (0 without calls). */
  days: number;
  period: Period;
  models: ModelReport[];
  comparisons: Comparison[];
}

export const ALPHA = 0.05;
/** Pairs of models compared: those among the this many with the most calls. */
export const COMPARED_MODELS = 8;
const EXAMPLES = 10;
const DAY_MS = 86_400_000;
/** Period lengths in days; each a multiple of the one before, weeks and longer start on a Monday. */
const PERIODS: [Period, number][] = [
  ['day', 1],
  ['week', 7],
  ['4 weeks', 28],
  ['52 weeks', 364],
];
/** A report's charts have at most this many periods (the shortest period that fits is used). */
const CHART_PERIODS = 62;
/** While reading, counters are kept per period of this many distinct periods at most (memory bound). */
const MAX_PERIODS_HELD = 1000;
const SEVERITY_ORDER: Record<string, number> = { critical: 0, warning: 1, info: 2 };

export const severityOrder = (a: { severity: string; ruleId: string }, b: { severity: string; ruleId: string }) =>
  (SEVERITY_ORDER[a.severity] ?? 1) - (SEVERITY_ORDER[b.severity] ?? 1) || (a.ruleId < b.ruleId ? -1 : 1);

export function matchesScope(r: ReportRow, scope: ReportScope): boolean {
  if (scope.useCase && r.useCase !== scope.useCase) return false;
  if (scope.from !== undefined && r.loggedAt < scope.from) return false;
  if (scope.to !== undefined && r.loggedAt >= scope.to) return false;
  return scope.where.every(([key, value]) => Object.hasOwn(r.metadata, key) && String(r.metadata[key]) === value);
}

/** The first day (epoch day) of the period of `width` days holding `day`; 1970-01-05 was a Monday. */
const periodStart = (day: number, width: number) => (width === 1 ? day : day - ((((day - 4) % width) + width) % width));
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Counters by period that can be merged into longer periods. */
class PeriodCounts<T> {
  readonly byStart = new Map<number, T>();
  constructor(private readonly merge: (into: T | undefined, value: T) => T) {}
  add(start: number, value: T): void {
    this.byStart.set(start, this.merge(this.byStart.get(start), value));
  }
  rebucket(width: number): void {
    const old = [...this.byStart];
    this.byStart.clear();
    for (const [start, value] of old) this.add(periodStart(start, width), value);
  }
  sorted(): [number, T][] {
    return [...this.byStart].sort((x, y) => x[0] - y[0]);
  }
}

const addPair = (into: [number, number] | undefined, v: [number, number]): [number, number] =>
  into ? [into[0] + v[0], into[1] + v[1]] : [v[0], v[1]];
const addNumber = (into: number | undefined, v: number) => (into ?? 0) + v;

type RuleCounts = Pick<RuleStat, 'ruleId' | 'category' | 'severity' | 'pass' | 'fail' | 'notGradable'> & {
  byPeriod: PeriodCounts<[number, number]>;
};

interface ModelCounts {
  calls: number;
  scoreSum: number;
  defects: number;
  latency: DDSketch;
  latencyN: number;
  volume: PeriodCounts<number>;
  rules: Map<string, RuleCounts>;
  criticalFailures: number;
  examples: (CriticalFailure & { at: number })[];
}

/** A report built one result at a time: `add` each result, then `finish`. */
export class ReportBuilder {
  private readonly models = new Map<string, ModelCounts>();
  private readonly periods = new Set<number>();
  private width = 1;
  private calls = 0;
  private firstDay = Infinity;
  private lastDay = -Infinity;

  constructor(private readonly scope: ReportScope) {}

  /** Counts a result when it is in the report's scope. */
  add(r: ReportRow): void {
    if (!matchesScope(r, this.scope)) return;
    this.calls += 1;
    const day = Math.floor(r.loggedAt / DAY_MS);
    this.firstDay = Math.min(this.firstDay, day);
    this.lastDay = Math.max(this.lastDay, day);
    const start = this.holdPeriod(day);
    const m = this.modelCounts(r.model);
    m.calls += 1;
    m.scoreSum += r.correctness?.score ?? 0;
    if (r.correctness?.verdict === 'defect') m.defects += 1;
    if (r.latencyMs !== null && Number.isFinite(r.latencyMs) && r.latencyMs >= 0) {
      m.latency.accept(r.latencyMs);
      m.latencyN += 1;
    }
    m.volume.add(start, 1);
    for (const rule of r.rules) {
      let c = m.rules.get(rule.ruleId);
      if (!c) {
        c = {
          ruleId: rule.ruleId,
          category: rule.category,
          severity: rule.severity,
          pass: 0,
          fail: 0,
          notGradable: 0,
          byPeriod: new PeriodCounts(addPair),
        };
        m.rules.set(rule.ruleId, c);
      }
      if (rule.outcome === 'pass') {
        c.pass += 1;
        c.byPeriod.add(start, [1, 0]);
      } else if (rule.outcome === 'fail') {
        c.fail += 1;
        c.byPeriod.add(start, [0, 1]);
      } else c.notGradable += 1;
      if (rule.outcome === 'fail' && rule.severity === 'critical') {
        m.criticalFailures += 1;
        this.keepExample(m, {
          recordId: r.recordId,
          ruleId: rule.ruleId,
          explanation: rule.explanation,
          at: r.loggedAt,
        });
      }
    }
  }

  finish(now = new Date()): EvalReport {
    const days = this.calls ? this.lastDay - this.firstDay + 1 : 0;
    const chosen = PERIODS.find(([, w]) => w >= this.width && Math.ceil(days / w) <= CHART_PERIODS) ?? PERIODS.at(-1)!;
    this.rebucket(chosen[1]);
    const models = [...this.models].map(([model, m]) => this.modelReport(model, m, days));
    models.sort((a, b) => (a.model < b.model ? -1 : 1));
    return {
      scope: this.scope,
      generatedAt: now.toISOString(),
      calls: this.calls,
      days,
      period: chosen[0],
      models,
      comparisons: compare(models),
    };
  }

  private modelCounts(model: string): ModelCounts {
    let m = this.models.get(model);
    if (!m) {
      m = {
        calls: 0,
        scoreSum: 0,
        defects: 0,
        latency: new DDSketch({ relativeAccuracy: 0.01 }),
        latencyN: 0,
        volume: new PeriodCounts(addNumber),
        rules: new Map(),
        criticalFailures: 0,
        examples: [],
      };
      this.models.set(model, m);
    }
    return m;
  }

  /** The period a day is counted in; counters move to longer periods when too many are held. */
  private holdPeriod(day: number): number {
    let start = periodStart(day, this.width);
    if (!this.periods.has(start) && this.periods.size >= MAX_PERIODS_HELD) {
      const next = PERIODS.find(([, w]) => w > this.width);
      if (next) {
        this.rebucket(next[1]);
        start = periodStart(day, this.width);
      }
    }
    this.periods.add(start);
    return start;
  }

  private rebucket(width: number): void {
    if (width === this.width) return;
    this.width = width;
    const starts = [...this.periods];
    this.periods.clear();
    for (const s of starts) this.periods.add(periodStart(s, width));
    for (const m of this.models.values()) {
      m.volume.rebucket(width);
      for (const c of m.rules.values()) c.byPeriod.rebucket(width);
    }
  }

  private keepExample(m: ModelCounts, f: CriticalFailure & { at: number }): void {
    m.examples.push(f);
    if (m.examples.length >= 2 * EXAMPLES) m.examples = newestFirst(m.examples);
  }

  private modelReport(model: string, m: ModelCounts, days: number): ModelReport {
    const rules = [...m.rules.values()].map(({ byPeriod, ...c }): RuleStat => {
      const n = c.pass + c.fail;
      return {
        ...c,
        passRate: n ? c.pass / n : null,
        interval: wilson(c.pass, n),
        series: byPeriod.sorted().map(([start, [pass, fail]]) => ({
          start: isoDay(start),
          pass,
          fail,
          passRate: pass + fail ? pass / (pass + fail) : null,
          interval: wilson(pass, pass + fail),
        })),
      };
    });
    return {
      model,
      calls: m.calls,
      correctnessMean: m.scoreSum / m.calls,
      defectRate: m.defects / m.calls,
      notGradable: rules.reduce((s, r) => s + r.notGradable, 0),
      latency: m.latencyN
        ? { n: m.latencyN, p50: m.latency.getValueAtQuantile(0.5), p95: m.latency.getValueAtQuantile(0.95) }
        : null,
      callsPerDay: days ? m.calls / days : 0,
      volume: m.volume.sorted().map(([start, calls]) => ({ start: isoDay(start), calls })),
      rules: rules.sort(severityOrder),
      criticalFailures: m.criticalFailures,
      examples: newestFirst(m.examples).map(({ at: _at, ...f }) => f),
    };
  }
}

const newestFirst = <T extends { at: number }>(xs: T[]) => [...xs].sort((a, b) => b.at - a.at).slice(0, EXAMPLES);

/** Each pair of models (of the COMPARED_MODELS with the most calls), rule by rule, Holm-adjusted per pair. */
function compare(models: ModelReport[]): Comparison[] {
  const compared = [...models]
    .sort((a, b) => b.calls - a.calls)
    .slice(0, COMPARED_MODELS)
    .sort((a, b) => (a.model < b.model ? -1 : 1));
  const out: Comparison[] = [];
  for (let i = 0; i < compared.length; i++) {
    for (let j = i + 1; j < compared.length; j++) {
      const [a, b] = [compared[i], compared[j]];
      const pair = a.rules.flatMap((ra) => {
        const rb = b.rules.find((r) => r.ruleId === ra.ruleId);
        if (!rb || ra.passRate === null || rb.passRate === null) return [];
        const nA = ra.pass + ra.fail;
        const nB = rb.pass + rb.fail;
        const test = twoProportionTest({ pass: ra.pass, n: nA }, { pass: rb.pass, n: nB });
        return [
          {
            ruleId: ra.ruleId,
            severity: ra.severity,
            a: a.model,
            b: b.model,
            passRateA: ra.passRate,
            passRateB: rb.passRate,
            nA,
            nB,
            p: test?.p ?? null,
            pAdjusted: null as number | null,
            better: null as string | null,
          },
        ];
      });
      holm(pair.map((c) => c.p)).forEach((adjusted, k) => {
        const c = pair[k];
        c.pAdjusted = adjusted;
        if (adjusted !== null && adjusted < ALPHA && c.passRateA !== c.passRateB)
          c.better = c.passRateA > c.passRateB ? c.a : c.b;
      });
      out.push(...pair);
    }
  }
  return out;
}

/** A report of results already in memory (tests, small tenants). */
export function buildReport(results: Iterable<ReportRow>, scope: ReportScope, now = new Date()): EvalReport {
  const builder = new ReportBuilder(scope);
  for (const r of results) builder.add(r);
  return builder.finish(now);
}
