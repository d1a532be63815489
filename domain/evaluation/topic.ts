/**
 * What the built-in judge's on-topic rule reads (checks.ts, `on_topic`): how close the output is to
 * what the user asked, as the cosine similarity of the last user message embedded as a query and
 * the output embedded as a passage (its first 2,000 characters: an output of any length costs one
 * or two model windows), by E5, the embedding server every process has. It is measured
 * before grading, only when a rule asks for it; the judge itself stays pure.
 */
import type { Embedder } from '../models/embeddings';
import type { Check, Message } from './checks';
import { tokenBound } from '../models/token-window';
import { embeddedPart } from '../text/records';
import { readRule } from './rule-parser';

const hasKind = (check: Check, kind: Check['kind']): boolean =>
  check.kind === kind || (check.kind === 'all' && check.checks.some((c) => hasKind(c, kind)));

/** Whether one of the rules reads as an on-topic rule. */
export const asksOnTopic = (rules: { description: string }[]) =>
  rules.some((r) => {
    const { check } = readRule(r.description);
    return check !== undefined && hasKind(check, 'on_topic');
  });

/** Tokens of the model's window: the most a query costs (the embedder cuts it to the window). */
const QUERY_WINDOW = 512;

/** The last user message with text, or undefined. */
const lastRequest = (messages: Message[]) =>
  [...messages].reverse().find((m) => m.role === 'user' && m.content.trim())?.content;

/** A group is embedded with one query call and one passage call: at most this many pairs, */
const GROUP_PAIRS = 16;
/**
 * and questions of at most this many tokens together (by the bound, each a window at most), so
 * that its query call stays well within the embedder's query timeout.
 */
const GROUP_QUERY_TOKENS = 1024;

/** Consecutive groups of pair indexes within the bounds above. */
function groups(requests: string[]): number[][] {
  const out: number[][] = [];
  let group: number[] = [];
  let tokens = 0;
  requests.forEach((request, i) => {
    const cost = Math.min(tokenBound(request.slice(0, 4 * QUERY_WINDOW)), QUERY_WINDOW);
    if (group.length && (group.length >= GROUP_PAIRS || tokens + cost > GROUP_QUERY_TOKENS)) {
      out.push(group);
      group = [];
      tokens = 0;
    }
    group.push(i);
    tokens += cost;
  });
  if (group.length) out.push(group);
  return out;
}

/**
 * The similarity of the last user message and the output of each pair (undefined where there is
 * nothing to compare or the embedding server does not answer: the rule is then not applicable;
 * grading goes on). The questions of a group go in one query call and the outputs in one passage
 * call, so a batch pays two server calls per group of up to 16 records, not two per record.
 * `interactive`: a request waits for it (evaluate), so it goes ahead of background passages.
 */
export async function topicSimilarities(
  deps: { embedder: Embedder; signal?: AbortSignal },
  input: { pairs: { messages: Message[]; output: string }[]; tenant?: string; interactive: boolean },
): Promise<(number | undefined)[]> {
  const out: (number | undefined)[] = input.pairs.map(() => undefined);
  const common = { tenant: input.tenant, signal: deps.signal };
  const comparable = input.pairs
    .map((p, i) => ({ i, request: lastRequest(p.messages), output: p.output }))
    .filter((p): p is { i: number; request: string; output: string } => !!p.request && !!p.output.trim());
  for (const indexes of groups(comparable.map((p) => p.request))) {
    const group = indexes.map((k) => comparable[k]);
    try {
      const [queries, passages] = await Promise.all([
        deps.embedder.embed({ ...common, texts: group.map((p) => p.request), inputType: 'query' }),
        deps.embedder.embed({
          ...common,
          texts: group.map((p) => embeddedPart(p.output)),
          inputType: 'passage',
          interactive: input.interactive,
        }),
      ]);
      group.forEach((p, k) => (out[p.i] = dot(queries[k], passages[k])));
    } catch (err) {
      if (deps.signal?.aborted) throw err;
    }
  }
  return out;
}

/** The similarity of one output to its question (see topicSimilarities). */
export async function topicSimilarity(
  deps: { embedder: Embedder; signal?: AbortSignal },
  input: { messages: Message[]; output: string; tenant?: string; interactive: boolean },
): Promise<number | undefined> {
  const [similarity] = await topicSimilarities(deps, { ...input, pairs: [input] });
  return similarity;
}

/** The cosine of two unit vectors. */
function dot(a: number[], b: number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
