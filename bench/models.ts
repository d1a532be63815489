/**
 * `npm run bench:models [-- options]`: the model engines against a real chat model, through the
 * API (scripts/stack/bench.ts starts the stack; this script starts the chat model server, then two
 * workers and APIs in-process).
 *
 * The model: by default the stack's local llama.cpp server on the pinned Gemma 3 270M GGUF, started
 * here as the stack starts it (bench/lib/chat-model.ts); with CHAT_BASE_URL (and CHAT_MODEL,
 * CHAT_API_KEY, CHAT_CONTEXT_TOKENS) in the environment, that OpenAI-compatible server instead.
 * One app has the model configured, with CHAT_FALLBACK=local (the built-in engine answers when the
 * model fails, with `X-Engine-Fallback: local`); a second app has no model (the built-in engines).
 * Every item is sent to both, one request at a time (a local server has a single slot). The model
 * app reaches the server through a recording pass-through (bench/lib/chat-proxy.ts), which sees
 * every call's bound, usage and finish reason.
 *
 * Tasks (ask and no_answer share a tenant holding the knowledge base, the others have one each;
 * a task's tokens are its tenant's counts for its capability, taken before and after it):
 * - ask: non-empty StackFAQ group B queries (held out) against the 125 StackFAQ threads as
 *   articles; score: the first link is the gold thread's (bench:ask's metric);
 * - no_answer: BANKING77 test questions against the same knowledge base; score: the share
 *   answered `no-answer`;
 * - summary: DialogSum test dialogues, one turn per comment; score: ROUGE-L F1 against summary1;
 * - sentiment: TweetEval sentiment test tweets; score: macro-recall of negative/neutral/positive
 *   (the score's polarity, levels.ts), TweetEval's official metric as in bench:sentiment;
 * - tags: BANKING77 test questions, the tenant's tag model trained on the BANKING77 training
 *   questions uploaded as cases (as bench:tags does); score: accuracy of the top tag.
 * Each task's items are spread evenly over its source (a fixed sample that keeps its mix).
 *
 * Per task: n, readable (the share the model itself answered: not a fallback, not an error),
 * fallbacks, score and local_engine_score, tokens per call (from the tenant's TokenUsage rows),
 * the model app's client-side p50/p95, and each call's completion tokens against its bound.
 *
 * Writes bench/results/models.json (or --out); docs/benchmarks.md describes the numbers.
 */
import { Command, InvalidArgumentError } from 'commander';
import { requestTagTraining, waitForTagTraining } from '../scripts/tag-trainer';
import { CHAT_CAPABILITIES, type ChatCapability, DEFAULT_MAX_TOKENS, loadServicesConfig } from '../domain/config';
import { polarityOf } from '../domain/sentiment/levels';
import { connectWeaviate } from '../domain/weaviate/client';
import { tokenReport, utcDay, WeaviateTokenUsage } from '../domain/weaviate/token-usage';
import { type ApiClient, chunks } from './lib/api-client';
import { benchChatModel } from './lib/chat-model';
import { type ChatProxy, type ProxiedCall, startChatProxy } from './lib/chat-proxy';
import { type Banking77Row, datasetFile, loadBanking77, loadStackFaq, readJsonl } from './lib/datasets';
import { stackFaqArticle } from './lib/latency-corpus';
import { type Sample, summarize } from './lib/load';
import { progress } from './lib/progress';
import { rougeScores } from './lib/rouge';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';
import { type ClassIndex, classMetrics, loadTweetEval } from './lib/sentiment';
import { freshTenant, type InProcessApp, tenantClient } from './lib/stack-app';
import { startInProcess } from '../scripts/stack/in-process';

const TASKS = ['ask', 'no_answer', 'summary', 'sentiment', 'tags'] as const;
type Task = (typeof TASKS)[number];

/** Items per task at full size. */
const SIZES: Record<Task, number> = { ask: 200, no_answer: 200, summary: 100, sentiment: 300, tags: 300 };

/** The model capability each task's calls are counted under. */
const CAPABILITY: Record<Task, ChatCapability> = {
  ask: 'ask',
  no_answer: 'ask',
  summary: 'summary',
  sentiment: 'sentiment',
  tags: 'tags',
};

const METRIC: Record<Task, string> = {
  ask: 'first link is the gold thread (StackFAQ group B)',
  no_answer: 'share answered no-answer (BANKING77 test against the StackFAQ knowledge base)',
  summary: 'ROUGE-L F1 against summary1 (DialogSum test)',
  sentiment: 'macro-recall of negative/neutral/positive (TweetEval sentiment test)',
  tags: 'top-1 accuracy (BANKING77 test, 77 tags)',
};

/** The model app's settings that shape what it does with the model (null: the default). */
const SETTINGS = [
  'CHAT_TIMEOUT_MS',
  'DEADLINE_MODEL_MS',
  'CHAT_RESPONSE_FORMAT',
  'CHAT_FREQUENCY_PENALTY',
  'CHAT_BOUNDED_STRINGS',
  ...CHAT_CAPABILITIES.map((c) => `CHAT_MAX_TOKENS_${c.replace(/[A-Z]/g, (l) => `_${l}`).toUpperCase()}`),
];

interface Options {
  datasets: string;
  tasks: Task[];
  limit?: Limit;
  tagShots?: number;
  out: string;
}

/** At most this many items for every task, or for the tasks named (the others at full size). */
type Limit = number | Partial<Record<Task, number>>;

const limitOption = (value: string): Limit => {
  if (/^\d+$/.test(value.trim())) return positiveInt(value.trim());
  const limit: Partial<Record<Task, number>> = {};
  for (const part of value.split(',')) {
    const [task, n] = part.split('=').map((x) => x.trim());
    if (!(TASKS as readonly string[]).includes(task) || n === undefined)
      throw new InvalidArgumentError(`expected a number, or task=number pairs of ${TASKS.join(', ')} (ask=60,tags=60)`);
    limit[task as Task] = positiveInt(n);
  }
  return limit;
};

/** A task's size under a limit. */
const sizeOf = (task: Task, limit: Limit | undefined) =>
  Math.min(SIZES[task], (typeof limit === 'number' ? limit : limit?.[task]) ?? Infinity);

const taskList = (value: string): Task[] => {
  const tasks = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = tasks.filter((t) => !(TASKS as readonly string[]).includes(t));
  if (unknown.length || tasks.length === 0)
    throw new InvalidArgumentError(`expected a comma-separated list of ${TASKS.join(', ')}`);
  return TASKS.filter((t) => tasks.includes(t));
};

/** `n` items spread evenly over the list (a fixed sample that keeps the list's mix). */
function evenSample<T>(items: readonly T[], n: number): T[] {
  if (n >= items.length) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]);
}

/** One answer of an app to one item: its status, whether the built-in engine stood in for the model, and what it said. */
interface Answer<V> {
  status: number;
  fallback: boolean;
  ms: number;
  value?: V;
}

/** How a task sends an item to the API and reads the answer. */
interface TaskSpec<I, V> {
  items: I[];
  scopes: string[];
  /** Tasks with the same key share a tenant and its setup. */
  tenantKey: string;
  /** Stores what the task's tenant needs (a knowledge base, a tag model), through the baseline app. */
  setup?: (client: ApiClient, tenant: string) => Promise<Record<string, unknown>>;
  send: (client: ApiClient, item: I) => Promise<{ status: number; body: any; headers: Headers }>;
  read: (body: any) => V;
  /** The task's score over every item; an answer without a value (an error) counts as a miss. */
  score: (items: I[], answers: Answer<V>[]) => { score: number; [k: string]: unknown };
}

const isNoAnswer = (body: any) => (body.responseType ?? 'no-answer') === 'no-answer';

/** Markdown as text: escapes and bold markers removed (as bench:summary reads the summaries). */
const markdownText = (md: string) => md.replace(/\*\*/g, '').replace(/\\(.)/g, '$1');

const turns = (dialogue: string) => dialogue.split('\n').filter((t) => t.trim());

interface TestDialogue {
  fname: string;
  dialogue: string;
  summary1: string;
}

async function uploadKnowledgeBase(client: ApiClient, root: string) {
  const { threads } = loadStackFaq(root);
  const articles = threads.map(stackFaqArticle);
  const started = Date.now();
  for (const chunk of chunks(articles, 25)) {
    const res = await client.upload('/v1/articles', { articles: chunk });
    if (res.result !== 'success')
      throw new Error(`article upload was ${res.result}: ${JSON.stringify(res.failed).slice(0, 300)}`);
  }
  return { articles: articles.length, upload_seconds: round((Date.now() - started) / 1000, 1) };
}

/** The first `shots` rows of each intent, in file order. */
function fewShot(rows: readonly Banking77Row[], shots: number): Banking77Row[] {
  const seen = new Map<string, number>();
  return rows.filter((r) => {
    const n = seen.get(r.category) ?? 0;
    seen.set(r.category, n + 1);
    return n < shots;
  });
}

/** The training questions as tagged cases, then the tenant's trainer asked to train at once (as bench:tags does). */
async function trainTags(app: InProcessApp, client: ApiClient, tenant: string, rows: readonly Banking77Row[]) {
  const started = Date.now();
  const bar = progress('[models] tags: upload the training cases', rows.length);
  const cases = rows.map((r, i) => ({ id: `b77-${i}`, subject: r.text, tags: [r.category] }));
  for (const data of chunks(cases, 500)) {
    const body = await client.upload('/v1/cases', { data });
    if (body.result !== 'success') throw new Error(`upload not fully stored: ${JSON.stringify(body).slice(0, 300)}`);
    bar.tick(data.length);
  }
  bar.stop();
  const uploadSeconds = (Date.now() - started) / 1000;
  const { requestedAt } = await requestTagTraining({ client: app.temporal, taskQueue: app.taskQueue, tenant });
  const last = await waitForTagTraining({ client: app.temporal, tenant, since: requestedAt, timeoutMs: 30 * 60_000 });
  if (last.error || !last.run) throw new Error(`training failed: ${last.error}`);
  console.log(`[models] tags: trained on ${last.run.cases} cases, ${last.run.tags} tags`);
  return {
    cases: rows.length,
    tags: last.run.tags,
    upload_seconds: round(uploadSeconds, 1),
    training_seconds: round(last.run.durationMs / 1000, 1),
  };
}

function taskSpecs(app: InProcessApp, o: Options): { [T in Task]: () => TaskSpec<any, any> } {
  const root = resolveDatasets(o.datasets);
  const size = (t: Task) => sizeOf(t, o.limit);
  const ask = (client: ApiClient, query: string) => client.raw('POST', '/v1/assistant/ask', { query });
  const kbSetup = (client: ApiClient) => uploadKnowledgeBase(client, root);

  return {
    ask: () => {
      const { threads, queries } = loadStackFaq(root);
      const goldUrl = new Map(threads.map((t) => [t.thread_id, stackFaqArticle(t).url]));
      const groupB = queries.filter((q) => q.group === 'B' && q.text.trim());
      return {
        items: evenSample(groupB, size('ask')),
        scopes: ['articles:write', 'ask'],
        tenantKey: 'kb',
        setup: kbSetup,
        send: (client, q) => ask(client, q.text),
        read: (body) => ({ noAnswer: isNoAnswer(body), firstLink: body.links?.[0]?.url as string | undefined }),
        score: (items, answers) => {
          const correct = answers.filter(
            (a, i) => a.value && !a.value.noAnswer && a.value.firstLink === goldUrl.get(items[i].thread_id),
          ).length;
          const answered = answers.filter((a) => a.value && !a.value.noAnswer).length;
          return { score: round(correct / items.length), answered: round(answered / items.length) };
        },
      } satisfies TaskSpec<{ text: string; thread_id: string }, { noAnswer: boolean; firstLink?: string }>;
    },
    no_answer: () => ({
      items: evenSample(loadBanking77(root, 'test'), size('no_answer')),
      scopes: ['articles:write', 'ask'],
      tenantKey: 'kb',
      setup: kbSetup,
      send: (client, row) => ask(client, row.text),
      read: (body) => isNoAnswer(body),
      score: (items, answers) => ({ score: round(answers.filter((a) => a.value === true).length / items.length) }),
    }),
    summary: () => {
      const test = readJsonl<TestDialogue>(datasetFile(root, 'dialogsum', 'dialogsum.test.jsonl'));
      return {
        items: evenSample(test, size('summary')),
        scopes: ['summary'],
        tenantKey: 'summary',
        send: (client, r) =>
          client.raw('POST', '/v1/summary', {
            comments: turns(r.dialogue).map((comment) => ({ comment })),
            format: 'markdown',
          }),
        read: (body) => markdownText(String(body.summary ?? '')),
        score: (items, answers) => {
          const scores = items.map((r, i) =>
            answers[i].value === undefined ? undefined : rougeScores(answers[i].value, r.summary1),
          );
          const mean = (k: 'rouge1' | 'rougeL') => scores.reduce((s, x) => s + (x?.[k] ?? 0), 0) / items.length;
          const words = answers.flatMap((a) =>
            a.value === undefined ? [] : [a.value.split(/\s+/).filter(Boolean).length],
          );
          return {
            score: round(mean('rougeL')),
            rouge1: round(mean('rouge1')),
            mean_words: round(words.reduce((s, w) => s + w, 0) / Math.max(1, words.length), 1),
          };
        },
      } satisfies TaskSpec<TestDialogue, string>;
    },
    sentiment: () => {
      const CLASS = { negative: 0, neutral: 1, positive: 2 } as const;
      return {
        items: evenSample(loadTweetEval(root, 'test'), size('sentiment')),
        scopes: ['sentiment'],
        tenantKey: 'sentiment',
        send: (client, t) => client.raw('POST', '/v1/sentiment', { message: t.text }),
        read: (body) => CLASS[polarityOf(Number(body.sentiment))] as ClassIndex,
        score: (items, answers) => {
          // An error counts as a miss: another class than the gold one.
          const predicted = answers.map((a, i) => a.value ?? (((items[i].label + 1) % 3) as ClassIndex));
          const m = classMetrics(
            items.map((t) => t.label),
            predicted,
          );
          return {
            score: round(m.macro_recall),
            accuracy: round(m.accuracy),
            macro_f1: round(m.macro_f1),
            confusion: m.confusion,
          };
        },
      } satisfies TaskSpec<{ text: string; label: ClassIndex }, ClassIndex>;
    },
    tags: () => {
      const train = loadBanking77(root, 'train');
      return {
        items: evenSample(loadBanking77(root, 'test'), size('tags')),
        scopes: ['cases:write', 'tag'],
        tenantKey: 'tags',
        setup: (client, tenant) => trainTags(app, client, tenant, o.tagShots ? fewShot(train, o.tagShots) : train),
        send: (client, row) => client.raw('POST', '/v1/tag', { message: row.text }),
        read: (body) => ({
          top: body.tags?.[0]?.name as string | undefined,
          source: body.tags?.[0]?.source as string | undefined,
        }),
        score: (items, answers) => ({
          score: round(answers.filter((a, i) => a.value?.top === items[i].category).length / items.length),
          no_tag: answers.filter((a) => a.value && !a.value.top).length,
        }),
      } satisfies TaskSpec<Banking77Row, { top?: string; source?: string }>;
    },
  };
}

/** Sends every item through one app, one at a time. */
async function sendAll<I, V>(spec: TaskSpec<I, V>, client: ApiClient, label: string): Promise<Answer<V>[]> {
  const bar = progress(label, spec.items.length, { every: 10 });
  const answers: Answer<V>[] = [];
  for (const item of spec.items) {
    const t0 = performance.now();
    let status = 0;
    let body: any;
    let fallback = false;
    try {
      const res = await spec.send(client, item);
      status = res.status;
      body = res.body;
      fallback = res.headers.get('x-engine-fallback') === 'local';
    } catch {
      status = 0; // the connection failed
    }
    const ms = performance.now() - t0;
    answers.push({ status, fallback, ms, value: status === 200 ? spec.read(body) : undefined });
    bar.tick();
  }
  bar.stop();
  return answers;
}

interface TokenTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** The tenant's tokens for `capability` counted since `fromDay`, summed over every process (domain/weaviate/token-usage.ts). */
async function tenantTokens(o: { tenant: string; capability: string; fromDay: number }): Promise<TokenTotals> {
  const store = new WeaviateTokenUsage(() => connectWeaviate(loadServicesConfig(process.env).weaviate));
  const rows = await tokenReport(store, { from: o.fromDay, to: utcDay(Date.now()), tenant: o.tenant });
  const mine = rows.filter((r) => r.capability === o.capability);
  return {
    calls: mine.reduce((s, r) => s + r.calls, 0),
    promptTokens: mine.reduce((s, r) => s + r.promptTokens, 0),
    completionTokens: mine.reduce((s, r) => s + r.completionTokens, 0),
  };
}

/**
 * The tokens counted since `before`, once they include `expectedCalls` calls: the meters store their
 * counts every second (TOKEN_SYNC_MS), so the last calls' may come a little after the answers.
 */
async function tokensSince(
  before: TokenTotals,
  o: { tenant: string; capability: string; fromDay: number; expectedCalls: number },
): Promise<TokenTotals> {
  const since = (t: TokenTotals) => ({
    calls: t.calls - before.calls,
    promptTokens: t.promptTokens - before.promptTokens,
    completionTokens: t.completionTokens - before.completionTokens,
  });
  let totals = since(await tenantTokens(o));
  for (let i = 0; i < 40 && totals.calls < o.expectedCalls; i++) {
    await new Promise((r) => setTimeout(r, 500));
    totals = since(await tenantTokens(o));
  }
  return totals;
}

/** The calls' completion tokens against their bound: the longest reply, and the replies cut at the bound. */
function boundCheck(calls: readonly ProxiedCall[], configured: number) {
  const answered = calls.filter((c) => c.status === 200);
  const reported = answered.filter((c) => typeof c.completionTokens === 'number');
  const bounds = [...new Set(calls.map((c) => c.maxTokens).filter((b): b is number => typeof b === 'number'))];
  const maxSeen = reported.length ? Math.max(...reported.map((c) => c.completionTokens!)) : null;
  return {
    completion_bound: configured,
    bounds_sent: bounds,
    max_completion_tokens_seen: maxSeen,
    calls_reporting_usage: reported.length,
    calls_cut_at_bound: answered.filter((c) => c.finishReason === 'length').length,
    within_bound:
      calls.every((c) => c.maxTokens === configured) &&
      reported.every((c) => c.completionTokens! <= (c.maxTokens ?? configured)),
  };
}

/** Where a model call's time goes, on average: the whole call as the API waited for it, and the server's own timing when it reports one. */
function callTimes(calls: readonly ProxiedCall[]) {
  const mean = (xs: number[]) => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 1) : null);
  const answered = calls.filter((c) => c.status === 200);
  return {
    call_mean_ms: mean(answered.map((c) => c.ms)),
    server_prompt_mean_ms: mean(answered.flatMap((c) => (c.promptMs === undefined ? [] : [c.promptMs]))),
    server_generation_mean_ms: mean(answered.flatMap((c) => (c.predictedMs === undefined ? [] : [c.predictedMs]))),
  };
}

/** What became of the model calls: answered (by finish reason), server errors, and calls the API gave up on. */
function callOutcomes(calls: readonly ProxiedCall[]) {
  const outcomes: Record<string, number> = {};
  for (const c of calls) {
    const key =
      c.status === 200 ? `200 ${c.finishReason ?? 'unknown'}` : c.status === 0 ? 'no answer' : String(c.status);
    outcomes[key] = (outcomes[key] ?? 0) + 1;
  }
  return outcomes;
}

const latency = (answers: readonly Answer<unknown>[]) => {
  const s = summarize(answers.map((a): Sample => ({ ms: a.ms, status: a.status })));
  return { p50_ms: s.p50_ms, p95_ms: s.p95_ms, max_ms: s.max_ms };
};

const statuses = (answers: readonly Answer<unknown>[]) =>
  answers.reduce<Record<string, number>>((m, a) => ({ ...m, [a.status]: (m[a.status] ?? 0) + 1 }), {});

interface TaskTenant {
  tenant: string;
  /** A client of the tenant for the app without the model; `.at()` gives the same keys for the other. */
  client: ApiClient;
  fromDay: number;
  setup?: Record<string, unknown>;
}

async function runTask(
  task: Task,
  spec: TaskSpec<any, any>,
  apps: { local: InProcessApp; model: InProcessApp },
  tenants: Map<string, TaskTenant>,
  proxy: ChatProxy,
  bound: number,
) {
  const started = Date.now();
  let t = tenants.get(spec.tenantKey);
  const created = !t;
  if (!t) {
    const tenant = freshTenant(`bench-models-${spec.tenantKey}`);
    const client = await tenantClient(apps.local, tenant, spec.scopes, 4);
    t = { tenant, client, fromDay: utcDay(Date.now()) };
    t.setup = spec.setup ? await spec.setup(client, tenant) : undefined;
    tenants.set(spec.tenantKey, t);
  }
  const tokenKey = { tenant: t.tenant, capability: CAPABILITY[task], fromDay: t.fromDay };

  const localAnswers = await sendAll(spec, t.client, `[models] ${task}: built-in engine`);
  const before = await tenantTokens(tokenKey);
  proxy.label = task;
  const firstCall = proxy.calls.length;
  const modelAnswers = await sendAll(spec, t.client.at(apps.model.baseUrl), `[models] ${task}: model`);
  proxy.label = '';
  // The calls of this task, ended ones: a call the API gave up on ends when the proxy sees its connection close.
  await new Promise((r) => setTimeout(r, 200));
  const calls = proxy.calls.slice(firstCall).filter((c) => c.label === task);
  const counted = calls.filter((c) => c.status === 200).length;
  const tokens = await tokensSince(before, { ...tokenKey, expectedCalls: counted });
  const setup = created ? t.setup : undefined;

  const n = spec.items.length;
  const fallbacks = modelAnswers.filter((a) => a.fallback).length;
  const errors = modelAnswers.filter((a) => a.status !== 200).length;
  const byModel = modelAnswers.map((a, i) => ({ a, i })).filter(({ a }) => a.status === 200 && !a.fallback);
  const scored = spec.score(spec.items, modelAnswers);
  const localScored = spec.score(spec.items, localAnswers);
  const modelOnly = byModel.length
    ? spec.score(
        byModel.map(({ i }) => spec.items[i]),
        byModel.map(({ a }) => a),
      ).score
    : null;
  const { score, ...scoreDetails } = scored;
  const { score: localScore, ...localDetails } = localScored;
  const perCall = (x: number) => (tokens.calls ? round(x / tokens.calls, 1) : null);
  const result = {
    n,
    readable: round((n - fallbacks - errors) / n),
    fallbacks,
    score,
    local_engine_score: localScore,
    tokens_per_call: perCall(tokens.promptTokens + tokens.completionTokens),
    prompt_tokens_per_call: perCall(tokens.promptTokens),
    completion_tokens_per_call: perCall(tokens.completionTokens),
    ...latency(modelAnswers),
    ...boundCheck(calls, bound),
    metric: METRIC[task],
    capability: CAPABILITY[task],
    errors,
    statuses: statuses(modelAnswers),
    score_where_the_model_answered: modelOnly,
    model_details: scoreDetails,
    local_engine_details: localDetails,
    local_engine_latency: latency(localAnswers),
    model_calls: calls.length,
    model_call_outcomes: callOutcomes(calls),
    model_call_times: callTimes(calls),
    token_usage: {
      calls: tokens.calls,
      prompt_tokens: tokens.promptTokens,
      completion_tokens: tokens.completionTokens,
    },
    tenant: created ? spec.tenantKey : `${spec.tenantKey} (made by an earlier task)`,
    ...(setup ? { setup } : {}),
    seconds: round((Date.now() - started) / 1000, 1),
  };
  console.log(
    `[models] ${task}: n ${n}, readable ${result.readable}, fallbacks ${fallbacks}, errors ${errors}, score ${score} (built-in ${localScore}), ` +
      `${result.tokens_per_call} tokens a call, p50 ${result.p50_ms} ms, p95 ${result.p95_ms} ms, ` +
      `longest reply ${result.max_completion_tokens_seen}/${bound} tokens, ${result.seconds} s`,
  );
  const details = {
    items: spec.items.map((item, i) => ({ item, model: modelAnswers[i], local: localAnswers[i] })),
    calls,
  };
  return { result, details };
}

async function main(): Promise<void> {
  const o = new Command('bench:models')
    .description(
      'The model engines against a real chat model (the local Gemma 3 270M server, or CHAT_BASE_URL): ask, no-answer, summary, sentiment and tags through the API with CHAT_FALLBACK=local, beside the built-in engines.',
    )
    .option(
      '--datasets <dir>',
      'folder holding stackfaq/, banking77/, dialogsum/ and tweeteval_sentiment/ (relative to the repository root)',
      DEFAULT_DATASETS,
    )
    .option('--tasks <list>', `comma-separated tasks to run, of ${TASKS.join(', ')}`, taskList, [...TASKS])
    .option(
      '--limit <n|task=n,...>',
      'items per task at most, or per named task (ask=60,tags=60; the others at full size): a quicker run, the result file says so',
      limitOption,
    )
    .option(
      '--tag-shots <n>',
      'train the tags tenant on the first n training questions of each intent instead of all 10,003 (a quicker run)',
      positiveInt,
    )
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/models.json')
    .parse()
    .opts<Options>();

  const info = runInfo();
  const started = Date.now();
  const chat = await benchChatModel();
  const proxy = await startChatProxy(chat.url);
  const modelEnv = {
    CHAT_BASE_URL: proxy.baseUrl,
    CHAT_API_KEY: chat.apiKey,
    CHAT_MODEL: chat.model,
    CHAT_CONTEXT_TOKENS: String(chat.contextTokens),
    CHAT_FALLBACK: 'local',
    // llama.cpp's grammar honours maxLength: the local server gets bounded strings, as under npm start.
    ...(chat.server === 'local' && !process.env.CHAT_BOUNDED_STRINGS ? { CHAT_BOUNDED_STRINGS: 'true' } : {}),
  };
  const modelConfig = loadServicesConfig({ ...process.env, ...modelEnv }).chat!;
  const apps: { local?: InProcessApp; model?: InProcessApp } = {};
  try {
    // The baseline: no model, whatever the environment says.
    apps.local = await startInProcess({ env: { CHAT_BASE_URL: '', CHAT_API_KEY: '', OPENAI_API_KEY: '' } });
    apps.model = await startInProcess({ env: modelEnv });
    console.log(
      `[models] ${chat.server} model ${chat.model}, context ${chat.contextTokens} tokens; tasks ${o.tasks.join(', ')}` +
        `; items ${o.tasks.map((t) => `${t} ${sizeOf(t, o.limit)}`).join(', ')}`,
    );
    const specs = taskSpecs(apps.local, o);
    const tasks: Record<string, unknown> = {};
    const tenants = new Map<string, TaskTenant>();
    const details: Record<string, unknown> = {};
    for (const task of o.tasks) {
      const bound = modelConfig.maxTokens[CAPABILITY[task]];
      const { result, details: d } = await runTask(
        task,
        specs[task](),
        apps as Required<typeof apps>,
        tenants,
        proxy,
        bound,
      );
      tasks[task] = result;
      details[task] = d;
    }
    const reported = [...new Set(proxy.calls.map((c) => c.model).filter(Boolean))];
    writeResult(o.out, {
      ...info,
      model: chat.model,
      server: chat.server,
      models_reported_by_the_server: reported,
      context_tokens: chat.contextTokens,
      ...(chat.local ? { local_server: chat.local } : {}),
      fallback: 'local',
      max_tokens: modelConfig.maxTokens,
      frequency_penalty: modelConfig.frequencyPenalty,
      bounded_strings: modelConfig.boundedStrings,
      default_max_tokens: DEFAULT_MAX_TOKENS,
      settings: Object.fromEntries(SETTINGS.map((name) => [name, process.env[name] ?? null])),
      limit: o.limit ?? null,
      sizes: Object.fromEntries(o.tasks.map((t) => [t, sizeOf(t, o.limit)])),
      full_sizes: SIZES,
      tag_training: o.tasks.includes('tags') ? (o.tagShots ? `${o.tagShots} per intent` : 'all') : undefined,
      requests: 'one at a time, the same items to the app with the model and to the app without',
      tasks,
      total_seconds: round((Date.now() - started) / 1000, 1),
    });
    // Per-item answers for error analysis; *.tmp.json is not committed.
    writeResult(o.out.replace(/\.json$/, '-details.tmp.json'), details);
  } finally {
    await apps.model?.close();
    await apps.local?.close();
    await proxy.close();
    await chat.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[bench:models] ${err.stack ?? err}`);
    process.exit(1);
  },
);
