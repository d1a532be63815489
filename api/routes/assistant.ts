/**
 * POST /v1/assistant/ask and POST /v1/feedback. Ask runs on the read path (read-path.ts), with
 * the searches' fair admission: retrieval and composition in this process, then the turn goes to
 * Temporal (ask-sessions.ts): a first turn to the tenant's answer log, a later one to its chat
 * session workflow, which keeps the context; both store the answer.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { answerQuestion } from '../../domain/ask/answer';
import { questionIntent } from '../../domain/tags/tag';
import { statedLanguage } from '../../domain/text/language';
import type { SearchPhase } from '../../domain/weaviate/retrieve';
import { findAnswer, storeFeedback } from '../../domain/weaviate/answers';
import { OPERATIONS } from '../../workflows/constants';
import { badRequest } from '../errors';
import type { AuthState } from '../middlewares/auth';
import { presentAnswer } from '../presenters/ask';
import { READ_POLICY, type ReadDeps, type ReadPolicy } from '../read-path';
import type { AskRequest } from '../../domain/contracts/ask';
import type { FeedbackRequest } from '../../domain/contracts/feedback';
import { operation } from '../schemas/operations';
import { guard } from './guard';
import { productList } from './search';
import { serverTiming } from './server-timing';
import type { RouteModule } from './types';

/** A model call takes seconds: each attempt gets the model's own timeout and a margin, two attempts. */
export const modelPolicy = (chatTimeoutMs: number): ReadPolicy => ({
  attemptTimeoutMs: chatTimeoutMs + 5000,
  totalTimeoutMs: 2 * chatTimeoutMs + 11_000,
  maxAttempts: 2,
  initialIntervalMs: 1000,
  backoffCoefficient: 2,
});

/** A leading rating word of feedback: `+1`/`helpful` → 1, `-1`/`not helpful` → -1, else 0. */
export function feedbackRating(details: string): number {
  const text = details.trim().toLowerCase();
  if (text.startsWith('-1') || /^not helpful\b/.test(text)) return -1;
  if (text.startsWith('+1') || /^helpful\b/.test(text)) return 1;
  return 0;
}

/** Waits between look-ups of an answer not stored yet: its session stores it within moments. */
const STORE_WAITS_MS = [250, 500, 1000];

/** The answer, allowing for the moments its session takes to store it after ask returned it. */
async function findStoredAnswer(d: ReadDeps, tenant: string, answerId: string) {
  for (const wait of [...STORE_WAITS_MS, undefined]) {
    const answer = await findAnswer(d, { tenant, answerId });
    if (answer || wait === undefined) return answer;
    await sleep(wait, undefined, { signal: d.signal });
  }
}

export const assistantRoutes: RouteModule = (router, deps) => {
  const ask = operation('ask');
  const policy = deps.chat.engine === 'openai' ? modelPolicy(deps.chatTimeoutMs) : READ_POLICY;
  router.post(ask.path, guard(deps, ask, 'model'), deps.searchAdmission, async function askQuestion(ctx) {
    const body = ctx.state.input.body as AskRequest;
    const { tenant } = ctx.state.auth as AuthState;
    const { headers } = ctx.state.input;
    const chatHeader = headers['Chat-Identifier'] as string | undefined;
    const chatId = chatHeader?.toLowerCase() ?? randomUUID();
    // The header's language, else the one the question shows; else answerQuestion takes the sources'.
    const stated = statedLanguage({ header: headers['X-Language-Iso-Code'], text: body.query });
    const history = chatHeader ? await deps.sessions.history(tenant, chatId) : [];
    const author = body.author ?? 'customer';
    const timings: Partial<Record<SearchPhase, number>> = {};
    const { result, timing } = await deps.reads.run({
      operation: OPERATIONS.ask,
      tenant,
      deadline: ctx.state.deadline,
      policy,
      read: async (d) => {
        const [answered, intentTag] = await Promise.all([
          answerQuestion(
            { ...d, chat: deps.chat, timings },
            { tenant, question: body.query.trim(), history, productIds: productList(body.productId), author, language: stated, now: Date.now() },
          ),
          // The intent is an extra: when the tag model cannot be read, the answer goes without it.
          questionIntent({ ...d, tenant }, { message: body.query.trim() }).catch((err) => {
            if (d.signal?.aborted) throw err;
            ctx.state.log?.warn({ err }, 'intent tag unavailable; answering without it');
            return null;
          }),
        ]);
        return { ...answered, intentTag };
      },
    });
    // The read is done: the admission place goes to the next question while the turn is recorded.
    ctx.state.releaseAdmission?.();
    const id = randomUUID();
    const { language } = result;
    const response = presentAnswer({ id, answer: result.answer, language, intentTag: result.intentTag });
    const recording = performance.now();
    await deps.sessions.record({
      tenant,
      chatId,
      history,
      requestId: ctx.state.requestId,
      answer: {
        answerId: id,
        chatId,
        question: body.query,
        standalone: result.standalone,
        answer: response.plaintext,
        responseType: response.responseType ?? 'no-answer',
        language,
        author,
        engine: result.engine,
        sources: result.answer.used.map((s) => ({ kind: s.kind, id: s.id, title: s.title, url: s.url })),
        createdAt: Date.now(),
      },
    });
    timings.session = performance.now() - recording;
    ctx.set('Chat-Identifier', chatId);
    ctx.set('Server-Timing', serverTiming(timing, timings));
    ctx.body = response;
  });

  const feedback = operation('sendFeedback');
  router.post(feedback.path, guard(deps, feedback, 'model'), async function sendFeedback(ctx) {
    const body = ctx.state.input.body as FeedbackRequest;
    const { tenant } = ctx.state.auth as AuthState;
    await deps.reads.run({
      operation: OPERATIONS.feedback,
      tenant,
      deadline: ctx.state.deadline,
      read: async (d) => {
        const answer = await findStoredAnswer(d, tenant, body.id);
        // 404 is not among the spec's statuses for feedback (docs/api.md).
        if (!answer) throw badRequest(`/id names no answer of this tenant: ${JSON.stringify(body.id)} `);
        await storeFeedback(d, { tenant, feedback: { answerId: answer.answerId, details: body.feedbackDetails, rating: feedbackRating(body.feedbackDetails), createdAt: Date.now() } });
      },
    });
    ctx.body = { result: 'success' };
  });
};
