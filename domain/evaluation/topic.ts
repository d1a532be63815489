/**
 * What the built-in judge's on-topic rule reads (checks.ts, `on_topic`): how close the output is to
 * what the user asked, as the cosine similarity of the last user message embedded as a query and
 * the output embedded as a passage (its first 2,000 characters: an output of any length costs one
 * or two model windows), by E5, the embedding server every process has. It is measured
 * before grading, only when a rule asks for it; the judge itself stays pure.
 */
import type { Embedder } from '../models/embeddings';
import type { Check, Message } from './checks';
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

/**
 * The similarity of the last user message and the output, or undefined when there is nothing to
 * compare or the embedding server does not answer (the rule is then not applicable; grading goes on).
 * `interactive`: a request waits for it (evaluate), so it goes ahead of background passages.
 */
export async function topicSimilarity(
  deps: { embedder: Embedder; signal?: AbortSignal },
  input: { messages: Message[]; output: string; tenant?: string; interactive: boolean },
): Promise<number | undefined> {
  const request = [...input.messages].reverse().find((m) => m.role === 'user' && m.content.trim());
  if (!request || !input.output.trim()) return undefined;
  const common = { tenant: input.tenant, signal: deps.signal };
  try {
    const [[q], [p]] = await Promise.all([
      deps.embedder.embed({ ...common, texts: [request.content], inputType: 'query' }),
      deps.embedder.embed({
        ...common,
        texts: [embeddedPart(input.output)],
        inputType: 'passage',
        interactive: input.interactive,
      }),
    ]);
    let dot = 0;
    for (let i = 0; i < q.length; i++) dot += q[i] * p[i];
    return dot;
  } catch (err) {
    if (deps.signal?.aborted) throw err;
    return undefined;
  }
}
