/**
 * `npm run bench:isolation [-- options]`: can one tenant's most expensive valid requests slow another
 * tenant down? Against the real stack (scripts/stack/bench.ts starts it; the worker and the API run
 * here as processes of their own, bench/lib/isolation-stack.ts), with the cost fuzzer's heaviest
 * requests (bench/lib/cost-fuzzer.ts).
 *
 * Throughout, the other tenant runs a steady mix on a thread of its own (bench/lib/steady-mix.ts): a
 * case search, the sentiment of a short message and `/healthz`, one every 200 ms in turn.
 *
 * 1. Quiet baseline: the mix alone.
 * 2. One phase per operation: the heavy tenant sends the fuzzer's heaviest requests for it (3, at
 *    most 2 at once) while the mix goes on. Measured: the other tenant's p95 against the baseline's
 *    (`other_p95_ratio`), the API's event loop's longest block (`event_loop_max_ms`, from
 *    perf_hooks.monitorEventLoopDelay in the API process), `/healthz`'s slowest answer, each heavy
 *    request's time and status. A phase lasts until its heavy requests are answered (at least 15 s,
 *    at most 70 s); then the heavy tenant's running workflows are terminated and the API is given
 *    time to settle (`/healthz` fast again), so a phase does not load the next.
 * 3. Quiet again, to show the drift of the machine itself.
 * 4. Ingestion: a fresh heavy tenant floods uploads (an article of ~1,000,000 `[`, one of `*a**`,
 *    each alone, then the fuzzer's heaviest 10 MB uploads) while the other tenant uploads one small
 *    article every 10 s. Measured from each upload's workflow history: the wait from the other
 *    tenant's request to its first ingestion activity's start (`other_tenant_start_wait_p95_s`), the
 *    poisoned article's attempts and how long it held its slot.
 *
 * Every 5xx of either tenant is counted (`five_xx`). Writes bench/results/isolation.json with the
 * goals and whether each is met. Every loop is bounded in count and time; all traffic goes to
 * 127.0.0.1. About 20 minutes on 2 cores when every heavy phase runs to its 70 s bound, less when
 * the heavy requests are answered sooner.
 */
import { Command, InvalidArgumentError } from 'commander';
import { randomBytes } from 'node:crypto';
import { activitySlots, activityTimeline, merge, terminateRunning, workflowsOfRequests } from './lib/activity-timeline';
import type { ActivityTimeline } from './lib/activity-timeline';
import { mapPool } from './lib/api-client';
import {
  COST_OPERATION_NAMES,
  costCases,
  costSetupCases,
  heaviest,
  PLACEHOLDERS,
  type CostCase,
  type CostOperation,
  type CostRequest,
} from './lib/cost-fuzzer';
import { MIX_MESSAGES, MIX_SEARCHES, smallArticle, smallArticles, smallCases } from './lib/isolation-content';
import { startIsolationStack, type IsolationStack } from './lib/isolation-stack';
import { percentile } from './lib/load';
import { progress } from './lib/progress';
import { positiveInt, round, runInfo, writeResult } from './lib/run-info';
import { freshTenant } from './lib/stack-app';
import { startSteadyMix, type MixSample, type SteadyMix } from './lib/steady-mix';

const GOALS = {
  other_p95_ratio: 2,
  event_loop_max_ms: 100,
  health_max_ms: 1000,
  other_tenant_start_wait_p95_s: 30,
  poisoned_attempts: 1,
  five_xx: 0,
};

/** The order of the heavy phases: uploads last, since what they leave in the worker takes longest to clear. */
const PHASE_ORDER: CostOperation[] = [
  'summary',
  'summary-conversation',
  'sentiment',
  'tag',
  'evaluate',
  'ask',
  'feedback',
  'search-cases',
  'search-articles',
  'upload-incident',
  'upload-cases',
  'upload-articles',
];

interface Options {
  seed: string;
  operations: CostOperation[];
  heavyPerOperation: number;
  heavyConcurrency: number;
  phaseMinSeconds: number;
  phaseMaxSeconds: number;
  baselineSeconds: number;
  mixIntervalMs: number;
  ingestion: boolean;
  ingestionSeconds: number;
  otherUploadIntervalSeconds: number;
  floodUploads: number;
  poisonedBudgetSeconds: number;
  out: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const r1 = (x: number) => Math.round(x * 10) / 10;

// ---------------------------------------------------------------------------------------------
// Requests of the main thread (the heavy tenant's, the uploads).

interface Prepared {
  name: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The JSON body, serialized once before the phase. */
  body?: string;
  bytes: number;
}

interface Answer {
  status: number;
  ms: number;
  /** The start, epoch ms. */
  t: number;
  body?: any;
  /** Not answered before the phase ended (its work may go on in the service). */
  unfinished?: boolean;
}

/** A case's request, with the placeholders filled and the body serialized before the phase starts. */
function prepare(o: { name: string; req: CostRequest; key: string; tenant: string; answerId?: string }): Prepared {
  const body = o.req.body && { ...o.req.body };
  if (body && body.id === PLACEHOLDERS.answerId) body.id = o.answerId;
  const headers: Record<string, string> = { Authorization: `Bearer ${o.key}` };
  for (const [name, value] of Object.entries(o.req.headers ?? {}))
    headers[name] = value === PLACEHOLDERS.businessId ? o.tenant : value;
  const json = body ? JSON.stringify(body) : undefined;
  if (json) headers['Content-Type'] = 'application/json';
  const query = o.req.query ? `?${new URLSearchParams(o.req.query)}` : '';
  return {
    name: o.name,
    method: o.req.method,
    url: `${o.req.path}${query}`,
    headers,
    body: json,
    bytes: json ? Buffer.byteLength(json) : query.length,
  };
}

async function send(
  baseUrl: string,
  p: Prepared,
  o: { requestId?: string; signal: AbortSignal; keepBody?: boolean },
): Promise<Answer> {
  const t = Date.now();
  const started = performance.now();
  const headers = o.requestId ? { ...p.headers, 'X-Request-Id': o.requestId } : p.headers;
  try {
    const res = await fetch(`${baseUrl}${p.url}`, { method: p.method, headers, body: p.body, signal: o.signal });
    const text = await res.text();
    let body: any = undefined;
    if (o.keepBody || res.status >= 400) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text.slice(0, 300);
      }
    }
    return { status: res.status, ms: performance.now() - started, t, body };
  } catch {
    return { status: 0, ms: performance.now() - started, t, unfinished: o.signal.aborted };
  }
}

/** An upload that must succeed (setup): 408 means it goes on, so the same request is sent again until 200. */
async function setupUpload(stack: IsolationStack, key: string, path: string, body: unknown): Promise<void> {
  const p = prepare({ name: 'setup', req: { method: 'POST', path, body: body as any }, key, tenant: '' });
  for (let attempt = 1; attempt <= 20; attempt++) {
    const answer = await send(stack.baseUrl, p, { signal: AbortSignal.timeout(180_000) });
    if (answer.status === 200 || answer.status === 201) return;
    if (![0, 408, 429, 503].includes(answer.status))
      throw new Error(`setup upload ${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    await sleep(2000);
  }
  throw new Error(`setup upload ${path} did not succeed`);
}

// ---------------------------------------------------------------------------------------------
// What a window of time saw.

interface Window {
  start: number;
  end: number;
}
const within = (t: number, w: Window) => t >= w.start && t < w.end;

/** The other tenant's search and sentiment requests started in the window. */
function otherStats(samples: readonly MixSample[], w: Window) {
  const mine = samples.filter((s) => s.kind !== 'health' && within(s.t, w));
  const answered = mine.filter((s) => s.status !== -1);
  const ms = answered.map((s) => s.ms);
  const statuses: Record<string, number> = {};
  for (const s of mine) statuses[s.status === -1 ? 'skipped' : s.status] = (statuses[s.status] ?? 0) + 1;
  return {
    requests: mine.length,
    statuses,
    p50_ms: r1(percentile(ms, 0.5)),
    p95_ms: r1(percentile(ms, 0.95)),
    max_ms: r1(ms.length ? Math.max(...ms) : Number.NaN),
    by_kind: Object.fromEntries(
      (['search', 'sentiment'] as const).map((kind) => {
        const k = answered.filter((s) => s.kind === kind).map((s) => s.ms);
        return [kind, { p50_ms: r1(percentile(k, 0.5)), p95_ms: r1(percentile(k, 0.95)) }];
      }),
    ),
  };
}

function healthMax(samples: readonly MixSample[], w: Window): number {
  const ms = samples.filter((s) => s.kind === 'health' && s.status !== -1 && within(s.t, w)).map((s) => s.ms);
  return r1(ms.length ? Math.max(...ms) : Number.NaN);
}

const fiveXx = (statuses: number[]) => statuses.filter((s) => s >= 500).length;

function loopMax(stack: IsolationStack, w: Window): number {
  const delays = stack.loopDelays().filter((d) => d.t >= w.start && d.t <= w.end);
  return delays.length ? Math.max(...delays.map((d) => d.max_ms)) : Number.NaN;
}

/** Waits until `/healthz` answers fast three times in a row (at most a minute): the API has caught up. */
async function settle(stack: IsolationStack): Promise<number> {
  const started = Date.now();
  let fast = 0;
  while (fast < 3 && Date.now() - started < 60_000) {
    const t = performance.now();
    const ok = await fetch(`${stack.baseUrl}/healthz`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.ok,
      () => false,
    );
    fast = ok && performance.now() - t < 50 ? fast + 1 : 0;
    await sleep(250);
  }
  return Date.now();
}

/** A quiet phase: only the mix, for `seconds`. */
async function quiet(label: string, seconds: number) {
  const bar = progress(`[isolation] ${label} (s)`, seconds);
  const start = Date.now();
  for (let s = 0; s < seconds; s++) {
    await sleep(Math.max(0, start + (s + 1) * 1000 - Date.now()));
    bar.tick();
  }
  bar.stop();
  return { start, end: Date.now() };
}

// ---------------------------------------------------------------------------------------------
// The run.

interface Context {
  o: Options;
  stack: IsolationStack;
  mix: SteadyMix;
  cases: CostCase[];
  heavy: { tenant: string; keys: string[]; answerId: string };
  baseline: { p95_ms: number };
  fiveXx: Record<string, number>;
}

async function heavyPhase(ctx: Context, op: CostOperation, index: number, total: number) {
  const { o, stack } = ctx;
  const cases = heaviest(ctx.cases, op, o.heavyPerOperation);
  const prepared = cases.map((c, i) =>
    prepare({
      name: c.name,
      req: c.build(),
      key: ctx.heavy.keys[i % ctx.heavy.keys.length],
      tenant: ctx.heavy.tenant,
      answerId: ctx.heavy.answerId,
    }),
  );
  const bar = progress(`[isolation] ${index}/${total} ${op}`, prepared.length);
  const stopAll = new AbortController();
  const start = Date.now();
  const cap = setTimeout(() => stopAll.abort(), o.phaseMaxSeconds * 1000);
  const answers = await mapPool(prepared, o.heavyConcurrency, async (p, i) => {
    if (stopAll.signal.aborted) return { status: 0, ms: 0, t: Date.now(), unfinished: true } as Answer;
    const a = await send(stack.baseUrl, p, {
      requestId: `iso-${op}-${i}-${randomBytes(3).toString('hex')}`,
      signal: stopAll.signal,
    });
    bar.tick();
    return a;
  });
  clearTimeout(cap);
  await sleep(Math.max(0, start + o.phaseMinSeconds * 1000 - Date.now()));
  const end = Date.now();
  bar.stop();
  const terminated = await terminateRunning(stack.temporal, ctx.heavy.tenant);
  const settled = await settle(stack);
  const window = { start, end };
  const other = otherStats(ctx.mix.samples, window);
  const heavy = prepared.map((p, i) => ({
    name: p.name,
    bytes: p.bytes,
    status: answers[i].status,
    ms: Math.round(answers[i].ms),
    ...(answers[i].unfinished ? { unfinished: true } : {}),
    ...(answers[i].status >= 400 && answers[i].body ? { error: JSON.stringify(answers[i].body).slice(0, 200) } : {}),
  }));
  const slowest = heavy.reduce((a, b) => (b.ms > a.ms ? b : a));
  const phaseFiveXx =
    fiveXx(answers.map((a) => a.status)) +
    fiveXx(ctx.mix.samples.filter((s) => within(s.t, window)).map((s) => s.status));
  ctx.fiveXx[op] = phaseFiveXx;
  const result = {
    heavy_request: slowest.name,
    heavy_ms: slowest.ms,
    heavy_status: slowest.status,
    heavy_requests: heavy,
    other_p95_ratio: round(other.p95_ms / ctx.baseline.p95_ms, 2),
    event_loop_max_ms: loopMax(stack, { start, end: settled }),
    health_max_ms: healthMax(ctx.mix.samples, window),
    five_xx: phaseFiveXx,
    other,
    phase_seconds: r1((end - start) / 1000),
    settle_seconds: r1((settled - end) / 1000),
    workflows_terminated_after: terminated,
  };
  console.log(
    `[isolation] ${op}: heavy ${slowest.name} ${slowest.status} in ${slowest.ms} ms; other p95 ${other.p95_ms} ms ` +
      `(x${result.other_p95_ratio}), event loop max ${result.event_loop_max_ms} ms, /healthz max ${result.health_max_ms} ms, 5xx ${phaseFiveXx}`,
  );
  return result;
}

/** The heavy tenant's and the other tenant's content, and an answer id for feedback. */
async function setup(stack: IsolationStack, o: Options, cases: CostCase[]) {
  const heavyTenant = freshTenant('iso-heavy');
  const otherTenant = freshTenant('iso-other');
  const heavyKeys = await stack.keys(heavyTenant, 2);
  const otherKeys = await stack.keys(otherTenant, 2);
  const started = Date.now();
  await setupUpload(stack, otherKeys[0], '/v1/cases', { data: smallCases('other', 30) });
  await setupUpload(stack, heavyKeys[0], '/v1/cases', { data: smallCases('heavy', 30) });
  await setupUpload(stack, heavyKeys[0], '/v1/articles', { articles: smallArticles('heavy', 10) });
  // The big cases the conversationId requests name, one request each (1.5 MiB apiece).
  const needed = new Set(cases.filter((c) => o.operations.includes(c.operation)).flatMap((c) => c.setupCases ?? []));
  for (const big of costSetupCases(o.seed).filter((c) => needed.has(c.id)))
    await setupUpload(stack, heavyKeys[0], '/v1/cases', { data: [big.build()] });
  const ask = prepare({
    name: 'setup ask',
    req: { method: 'POST', path: '/v1/assistant/ask', body: { query: 'How do I reset my password?' } },
    key: heavyKeys[0],
    tenant: heavyTenant,
  });
  const answer = await send(stack.baseUrl, ask, { signal: AbortSignal.timeout(60_000), keepBody: true });
  if (answer.status !== 200) throw new Error(`setup ask answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  console.log(`[isolation] tenants set up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return {
    heavy: { tenant: heavyTenant, keys: heavyKeys, answerId: answer.body.id as string },
    other: { tenant: otherTenant, keys: otherKeys },
  };
}

/**
 * The ingestion part: a fresh heavy tenant floods uploads, the other tenant uploads one small
 * article every few seconds; their waits for a slot and the poisoned articles' attempts are read
 * from Temporal.
 */
async function ingestionPart(ctx: Context, other: { tenant: string; keys: string[] }) {
  const { o, stack } = ctx;
  const floodTenant = freshTenant('iso-flood');
  const [floodKey] = await stack.keys(floodTenant, 1);
  const articlesCases = heaviest(ctx.cases, 'upload-articles', Infinity);
  const alone = (pattern: string): Prepared => {
    const c = articlesCases.find((x) => x.pattern === pattern)!;
    const [first] = (c.build().body as { articles: unknown[] }).articles;
    return prepare({
      name: `upload-articles/${pattern}-1-article`,
      req: { method: 'POST', path: '/v1/articles', body: { articles: [first] } },
      key: floodKey,
      tenant: floodTenant,
    });
  };
  const poisoned = alone('brackets');
  const emphasis = alone('emphasis');
  const flood = articlesCases
    .filter((c) => c.pattern !== 'brackets' && c.pattern !== 'emphasis')
    .slice(0, o.floodUploads)
    .map((c) => prepare({ name: c.name, req: c.build(), key: floodKey, tenant: floodTenant }));
  const partAbort = new AbortController();
  const start = Date.now();
  const floodSent = [poisoned, emphasis, ...flood].map((p, i) => {
    const requestId = `iso-flood-${i}-${randomBytes(3).toString('hex')}`;
    return { p, requestId, answer: send(stack.baseUrl, p, { requestId, signal: partAbort.signal }) };
  });
  // The flood's workflows are queued first, as when the heavy tenant came first.
  await sleep(3000);

  const uploads = Math.max(1, Math.floor(o.ingestionSeconds / o.otherUploadIntervalSeconds));
  const bar = progress('[isolation] ingestion (other uploads started)', uploads);
  const sent: { requestId: string; sentAt: number; answer: Promise<Answer> }[] = [];
  const otherStarts = new Map<string, number>();
  const otherFound = new Set<string>();
  const tracked = new Map<string, ActivityTimeline>();
  const poisonedIds = floodSent.slice(0, 2).map((f) => f.requestId);
  let workflowOf = new Map<string, string[]>();
  const observe = async () => {
    // The poisoned articles: observed while they run, since a history keeps only an activity's last attempt.
    if (workflowOf.size < 2)
      workflowOf = await workflowsOfRequests(stack.temporal, {
        tenant: floodTenant,
        operation: 'articles-upsert',
        requestIds: new Set(poisonedIds),
        waitMs: 0,
      });
    for (const id of [...workflowOf.values()].flat())
      tracked.set(id, merge(tracked.get(id), await activityTimeline(stack.temporal, id)));
    // The other tenant's uploads: started once their first activity has.
    const waiting = new Set(sent.map((s) => s.requestId).filter((id) => !otherStarts.has(id)));
    if (!waiting.size) return;
    const found = await workflowsOfRequests(stack.temporal, {
      tenant: other.tenant,
      operation: 'articles-upsert',
      requestIds: waiting,
      waitMs: 0,
    });
    for (const [requestId, ids] of found) {
      otherFound.add(requestId);
      const starts = (await Promise.all(ids.map((id) => activityTimeline(stack.temporal, id))))
        .map((t) => t.firstStartedMs)
        .filter((t): t is number => t !== undefined);
      if (starts.length) {
        otherStarts.set(requestId, Math.min(...starts));
        bar.tick();
      }
    }
  };

  let next = Date.now();
  const tailMs = 40_000;
  const hardEnd = Date.now() + o.ingestionSeconds * 1000 + tailMs + 30_000;
  for (let polls = 0; polls < 2000 && Date.now() < hardEnd; polls++) {
    if (sent.length < uploads && Date.now() >= next) {
      const i = sent.length;
      const requestId = `iso-other-upload-${i}-${randomBytes(3).toString('hex')}`;
      const p = prepare({
        name: 'one small article',
        req: { method: 'POST', path: '/v1/articles', body: { articles: [smallArticle(`other-upload-${i}`, i)] } },
        key: other.keys[i % other.keys.length],
        tenant: other.tenant,
      });
      sent.push({
        requestId,
        sentAt: Date.now(),
        answer: send(stack.baseUrl, p, { requestId, signal: partAbort.signal }),
      });
      next += o.otherUploadIntervalSeconds * 1000;
    }
    await observe().catch((err) => console.error(`[isolation] reading Temporal failed: ${err.message ?? err}`));
    const lastSent = sent.length === uploads ? sent[uploads - 1].sentAt : Infinity;
    const poisonedClosed =
      [...tracked.values()].length >= 2 && [...tracked.values()].every((t) => t.status !== 'RUNNING');
    const allStarted = otherStarts.size === uploads;
    if (Date.now() > lastSent + tailMs || (allStarted && poisonedClosed && sent.length === uploads)) break;
    await sleep(2000);
  }
  const end = Date.now();
  bar.stop();
  await observe().catch(() => undefined);
  // Who held the ingestion slots when the part ended, and who waited for one.
  const slotsAtEnd = {
    flood_tenant: await activitySlots(stack.temporal, floodTenant),
    other_tenant: await activitySlots(stack.temporal, other.tenant),
  };
  partAbort.abort();
  const floodAnswers = await Promise.all(floodSent.map((f) => f.answer));
  const otherAnswers = await Promise.all(sent.map((s) => s.answer));
  const terminated =
    (await terminateRunning(stack.temporal, floodTenant)) + (await terminateRunning(stack.temporal, other.tenant));

  const waits = sent.map((s, i) => {
    const startedAt = otherStarts.get(s.requestId);
    return {
      sent_at_s: r1((s.sentAt - start) / 1000),
      wait_s: r1(((startedAt ?? end) - s.sentAt) / 1000),
      started: startedAt !== undefined,
      workflow_found: otherFound.has(s.requestId),
      status: otherAnswers[i].unfinished ? 'unfinished' : otherAnswers[i].status,
    };
  });
  const poisonedOf = (requestId: string) => {
    const timelines = (workflowOf.get(requestId) ?? [])
      .map((id) => tracked.get(id))
      .filter(Boolean) as ActivityTimeline[];
    const t = timelines[0];
    if (!t) return { found: false };
    const closed = t.status !== 'RUNNING';
    return {
      workflow_id: t.workflowId,
      status: t.status,
      attempts: t.maxAttempt,
      seconds:
        t.firstStartedMs === undefined
          ? null
          : r1(((closed ? (t.lastClosedMs ?? end) : end) - t.firstStartedMs) / 1000),
      still_running_at_end: !closed,
      last_failure: t.lastFailure?.slice(0, 300),
    };
  };
  const [poisonedAnswer, emphasisAnswer] = floodAnswers;
  const window = { start, end };
  const other5xx = fiveXx(otherAnswers.map((a) => a.status));
  const flood5xx = fiveXx(floodAnswers.map((a) => a.status));
  const mix5xx = fiveXx(ctx.mix.samples.filter((s) => within(s.t, window)).map((s) => s.status));
  ctx.fiveXx.ingestion = other5xx + flood5xx + mix5xx;
  const p95 = percentile(
    waits.map((w) => w.wait_s),
    0.95,
  );
  const poisonedResult = poisonedOf(poisonedIds[0]);
  const emphasisResult = poisonedOf(poisonedIds[1]);
  const otherMix = otherStats(ctx.mix.samples, window);
  const result = {
    other_tenant_start_wait_p95_s: r1(p95),
    /** Each upload: when it was sent (s into the part), its wait, whether its activity started, its answer. */
    other_uploads_detail: waits,
    /** Uploads whose activity had not started when the part ended: their wait is at least the one given. */
    other_uploads_not_started: waits.filter((w) => !w.started).length,
    other_tenant_start_wait_p95_is_lower_bound: waits.some((w) => !w.started),
    poisoned_attempts: (poisonedResult as { attempts?: number }).attempts ?? null,
    poisoned_seconds: (poisonedResult as { seconds?: number | null }).seconds ?? null,
    poisoned: {
      request: poisoned.name,
      bytes: poisoned.bytes,
      answer: { status: poisonedAnswer.status, ms: Math.round(poisonedAnswer.ms), body: poisonedAnswer.body },
      ...poisonedResult,
    },
    emphasis_article: {
      request: emphasis.name,
      bytes: emphasis.bytes,
      answer: { status: emphasisAnswer.status, ms: Math.round(emphasisAnswer.ms), body: emphasisAnswer.body },
      ...emphasisResult,
    },
    flood: floodSent.slice(2).map((f, i) => ({
      request: f.p.name,
      bytes: f.p.bytes,
      status: floodAnswers[i + 2].status,
      ms: Math.round(floodAnswers[i + 2].ms),
      ...(floodAnswers[i + 2].unfinished ? { unfinished: true } : {}),
    })),
    other_uploads: {
      sent: sent.length,
      statuses: countBy(otherAnswers.map((a) => (a.unfinished ? 'unfinished' : a.status))),
    },
    other_p95_ratio: round(otherMix.p95_ms / ctx.baseline.p95_ms, 2),
    event_loop_max_ms: loopMax(stack, window),
    health_max_ms: healthMax(ctx.mix.samples, window),
    five_xx: ctx.fiveXx.ingestion,
    /** The flood's and the other tenant's uploads answered 5xx. */
    uploads_five_xx: other5xx + flood5xx,
    other: otherMix,
    seconds: r1((end - start) / 1000),
    activities_at_end: slotsAtEnd,
    workflows_terminated_after: terminated,
  };
  console.log(
    `[isolation] ingestion: other uploads' start wait p95 ${result.other_tenant_start_wait_p95_s} s ` +
      `(${result.other_uploads_not_started} not started), poisoned attempts ${result.poisoned_attempts}, held ${result.poisoned_seconds} s`,
  );
  return result;
}

function countBy(values: (string | number)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

async function run(stack: IsolationStack, o: Options) {
  const cases = costCases({ seed: o.seed });
  const { heavy, other } = await setup(stack, o, cases);
  const mix = startSteadyMix({
    baseUrl: stack.baseUrl,
    keys: other.keys,
    intervalMs: o.mixIntervalMs,
    maxInFlight: 32,
    timeoutMs: 30_000,
    maxDurationMs: 60 * 60_000,
    searches: MIX_SEARCHES,
    messages: MIX_MESSAGES,
  });
  try {
    await sleep(15_000); // warm-up: the first requests load code and caches
    const baselineWindow = await quiet('quiet baseline', o.baselineSeconds);
    const baselineOther = otherStats(mix.samples, baselineWindow);
    const baseline = {
      other: baselineOther,
      event_loop_max_ms: loopMax(stack, baselineWindow),
      health_max_ms: healthMax(mix.samples, baselineWindow),
    };
    console.log(
      `[isolation] baseline: other p95 ${baselineOther.p95_ms} ms, event loop max ${baseline.event_loop_max_ms} ms`,
    );
    const ctx: Context = { o, stack, mix, cases, heavy, baseline: { p95_ms: baselineOther.p95_ms }, fiveXx: {} };
    const phases = PHASE_ORDER.filter((op) => o.operations.includes(op));
    const operations: Record<string, Awaited<ReturnType<typeof heavyPhase>>> = {};
    for (const [i, op] of phases.entries()) operations[op] = await heavyPhase(ctx, op, i + 1, phases.length);
    const afterWindow = await quiet('quiet again', Math.max(10, Math.round(o.baselineSeconds / 2)));
    const quietAgain = {
      other: otherStats(mix.samples, afterWindow),
      event_loop_max_ms: loopMax(stack, afterWindow),
      health_max_ms: healthMax(mix.samples, afterWindow),
    };
    const ingestion = o.ingestion ? await ingestionPart(ctx, other) : undefined;
    const measured = { start: baselineWindow.start, end: Date.now() };
    await mix.stop();
    const mixFiveXx = fiveXx(mix.samples.filter((s) => within(s.t, measured)).map((s) => s.status));
    const heavyFiveXx = Object.values(operations).reduce(
      (n, r) => n + fiveXx(r.heavy_requests.map((h) => h.status)),
      0,
    );
    const uploadsFiveXx = ingestion?.uploads_five_xx ?? 0;
    const five_xx = mixFiveXx + heavyFiveXx + uploadsFiveXx;
    const health_max_ms = healthMax(mix.samples, measured);
    return {
      operations,
      ingestion,
      five_xx,
      five_xx_by: {
        other_tenant_mix: mixFiveXx,
        heavy_requests: heavyFiveXx,
        ingestion_uploads: uploadsFiveXx,
        per_phase: ctx.fiveXx,
      },
      health_max_ms,
      baseline,
      quiet_again: quietAgain,
      ...goals({ operations, ingestion, five_xx, health_max_ms, o }),
    };
  } finally {
    await mix.stop().catch(() => undefined);
  }
}

function goals(r: {
  operations: Record<string, { other_p95_ratio: number; event_loop_max_ms: number }>;
  ingestion?: {
    other_tenant_start_wait_p95_s: number;
    poisoned_attempts: number | null;
    poisoned_seconds: number | null;
    emphasis_article: { attempts?: number };
    event_loop_max_ms: number;
  };
  five_xx: number;
  health_max_ms: number;
  o: Options;
}) {
  const worst = (key: 'other_p95_ratio' | 'event_loop_max_ms') => {
    const rows = Object.entries(r.operations).map(([operation, v]) => ({ operation, value: v[key] }));
    if (key === 'event_loop_max_ms' && r.ingestion)
      rows.push({ operation: 'ingestion', value: r.ingestion.event_loop_max_ms });
    // NaN (nothing measured) counts as not met.
    return rows.reduce((a, b) => (!(b.value <= a.value) ? b : a), rows[0] ?? { operation: 'none', value: Number.NaN });
  };
  const ratio = worst('other_p95_ratio');
  const loop = worst('event_loop_max_ms');
  const i = r.ingestion;
  const checks = {
    other_p95_ratio: {
      goal: `<= ${GOALS.other_p95_ratio} for every operation`,
      worst: ratio,
      met: ratio.value <= GOALS.other_p95_ratio,
    },
    event_loop_max_ms: {
      goal: `<= ${GOALS.event_loop_max_ms} in every phase`,
      worst: loop,
      met: loop.value <= GOALS.event_loop_max_ms,
    },
    health_max_ms: {
      goal: `< ${GOALS.health_max_ms}`,
      value: r.health_max_ms,
      met: r.health_max_ms < GOALS.health_max_ms,
    },
    other_tenant_start_wait_p95_s: {
      goal: `<= ${GOALS.other_tenant_start_wait_p95_s}`,
      value: i?.other_tenant_start_wait_p95_s ?? null,
      met: i ? i.other_tenant_start_wait_p95_s <= GOALS.other_tenant_start_wait_p95_s : null,
    },
    poisoned: {
      goal: `tried once (the *a** article too) and its slot freed within its budget (${r.o.poisonedBudgetSeconds} s)`,
      attempts: i?.poisoned_attempts ?? null,
      seconds: i?.poisoned_seconds ?? null,
      met: i
        ? i.poisoned_attempts === GOALS.poisoned_attempts &&
          (i.emphasis_article.attempts ?? 1) <= GOALS.poisoned_attempts &&
          i.poisoned_seconds !== null &&
          i.poisoned_seconds <= r.o.poisonedBudgetSeconds
        : null,
    },
    five_xx: { goal: `${GOALS.five_xx}`, value: r.five_xx, met: r.five_xx === GOALS.five_xx },
  };
  return { goals: checks, goals_met: Object.values(checks).every((c) => c.met !== false) };
}

const operationList = (value: string): CostOperation[] => {
  if (value === 'all') return [...COST_OPERATION_NAMES];
  if (value === 'none') return [];
  const ops = value.split(',').map((s) => s.trim());
  for (const op of ops)
    if (!(COST_OPERATION_NAMES as string[]).includes(op))
      throw new InvalidArgumentError(`unknown operation ${op}; one of ${COST_OPERATION_NAMES.join(', ')}`);
  return ops as CostOperation[];
};

async function main(): Promise<void> {
  const o = new Command('bench:isolation')
    .description("Whether one tenant's most expensive valid requests slow another tenant (docs/benchmarks.md).")
    .option('--seed <text>', "the cost fuzzer's seed", 'isolation')
    .option(
      '--operations <list>',
      `operations to measure, comma-separated, all or none (${COST_OPERATION_NAMES.join(', ')})`,
      operationList,
      [...COST_OPERATION_NAMES],
    )
    .option('--heavy-per-operation <n>', "the fuzzer's heaviest requests sent per operation", positiveInt, 3)
    .option('--heavy-concurrency <n>', 'heavy requests in flight at once', positiveInt, 2)
    .option('--phase-min-seconds <n>', 'a heavy phase lasts at least this long', positiveInt, 15)
    .option('--phase-max-seconds <n>', 'a heavy phase ends after this long, answered or not', positiveInt, 70)
    .option('--baseline-seconds <n>', 'length of the quiet baseline', positiveInt, 30)
    .option('--mix-interval-ms <n>', "the other tenant's pace: one request every n ms", positiveInt, 200)
    .option('--no-ingestion', 'skip the ingestion part')
    .option('--ingestion-seconds <n>', 'how long the other tenant keeps uploading during the flood', positiveInt, 150)
    .option(
      '--other-upload-interval-seconds <n>',
      "the other tenant's one-article uploads: one every n s",
      positiveInt,
      10,
    )
    .option(
      '--flood-uploads <n>',
      "the fuzzer's heaviest uploads the flood sends after the poisoned articles",
      positiveInt,
      3,
    )
    .option(
      '--poisoned-budget-seconds <n>',
      "the poisoned article's budget (default WORKER_CPU_BUDGET_MS, 30 s)",
      positiveInt,
      Math.round(Number(process.env.WORKER_CPU_BUDGET_MS ?? 30_000) / 1000),
    )
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/isolation.json')
    .parse()
    .opts<Options>();

  const info = runInfo();
  const started = Date.now();
  const stack = await startIsolationStack();
  try {
    const result = await run(stack, o);
    const { commit, dirty, date, machine } = info;
    writeResult(o.out, {
      commit,
      dirty,
      date,
      machine,
      protocol: {
        heavy_tenant: `per operation, the cost fuzzer's ${o.heavyPerOperation} heaviest requests (seed "${o.seed}"), at most ${o.heavyConcurrency} at once; a phase lasts ${o.phaseMinSeconds} to ${o.phaseMaxSeconds} s`,
        other_tenant: `a case search, the sentiment of a short message and /healthz in turn, one every ${o.mixIntervalMs} ms (open loop, at most 32 in flight), on a thread of its own`,
        baseline: `${o.baselineSeconds} s of the mix alone; other_p95_ratio is a phase's p95 of the other tenant's searches and sentiments over the baseline's`,
        event_loop:
          'the API process (a process of its own) has perf_hooks.monitorEventLoopDelay preloaded (bench/lib/loop-delay-preload.js): the largest delay beyond its 10 ms sampling, from the phase start until the API has settled after it',
        ingestion: o.ingestion
          ? `a fresh tenant floods uploads (a ~1,000,000-character article of "[" alone, one of "*a**" alone, then the fuzzer's ${o.floodUploads} heaviest uploads of articles); the other tenant uploads one small article every ${o.otherUploadIntervalSeconds} s for ${o.ingestionSeconds} s; start waits from each upload's workflow (request sent to its first activity's start)`
          : 'skipped',
      },
      ...result,
      total_seconds: round((Date.now() - started) / 1000, 1),
    });
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[bench:isolation] ${err.stack ?? err}`);
    process.exit(1);
  },
);
