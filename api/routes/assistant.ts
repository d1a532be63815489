/**
 * POST /v1/assistant/ask and POST /v1/feedback. Each ask is a Temporal execution
 * (workflows/ask.ts), admitted by the asks' fair admission queue: the workflow retrieves,
 * composes and stores the answer, and its result is the response. Feedback is a read of the
 * stored answer and a write, on the read path.
 */
import { randomUUID } from 'node:crypto';
import { searchedQuestion } from '../../domain/ask/bounds';
import { productList } from '../../domain/contracts/search';
import { statedLanguage } from '../../domain/text/language';
import { findAnswer, storeFeedback } from '../../domain/weaviate/answers';
import { askWorkflow } from '../../workflows/ask';
import { answeredFirst } from '../ask-runtime';
import { ChatIdAttr, OPERATIONS } from '../../workflows/constants';
import { badRequest, forbidden } from '../errors';
import { presentAnswer } from '../presenters/ask';
import type { OperationContext, OperationMiddleware } from '../request-state';
import { AGENT_VIEW_SCOPE } from '../scopes';
import { operation } from '../schemas/operations';
import { guard } from './guard';
import { markFallback, readRoute } from './read-route';
import { phaseTimings } from './server-timing';
import type { RouteModule } from './types';

/** A leading rating word of feedback: `+1`/`helpful` → 1, `-1`/`not helpful` → -1, else 0. */
export function feedbackRating(details: string): number {
  const text = details.trim().toLowerCase();
  if (text.startsWith('-1') || /^not helpful\b/.test(text)) return -1;
  if (text.startsWith('+1') || /^helpful\b/.test(text)) return 1;
  return 0;
}

/**
 * `author: "agent"` asks for the agent view (answers from cases too): only a key with the scope that
 * grants it may have it (AGENT_VIEW_SCOPE); `author` states who asks, it never widens access.
 */
const agentView: OperationMiddleware<'ask'> = async function agentViewMiddleware(ctx, next) {
  const { scopes } = ctx.state.auth;
  const { author } = ctx.state.input.body;
  if (author === 'agent' && !scopes.includes(AGENT_VIEW_SCOPE))
    throw forbidden(
      `this API key lacks the scope "${AGENT_VIEW_SCOPE}", which the agent view (author "agent") needs; ` +
        'send author "customer" or no author',
    );
  await next();
};

/** The workflow's steps, whose durations the activities measured (the others are parts of `retrieve`). */
const STEPS = ['history', 'retrieve', 'compose', 'model', 'store'] as const;

export const assistantRoutes: RouteModule = (router, deps) => {
  const ask = operation('ask');
  router.post(
    ask.path,
    guard(deps, ask, 'model'),
    agentView,
    deps.askAdmission,
    async function askQuestion(ctx: OperationContext<'ask'>) {
      const body = ctx.state.input.body;
      const { tenant } = ctx.state.auth;
      const { headers } = ctx.state.input;
      const chatHeader = headers['Chat-Identifier'] as string | undefined;
      const chatId = chatHeader?.toLowerCase() ?? randomUUID();
      const answerId = randomUUID();
      const started = performance.now();
      const start = {
        workflow: askWorkflow,
        operation: OPERATIONS.ask,
        tenant,
        key: answerId,
        requestId: ctx.state.requestId,
        deadline: ctx.state.deadline,
        attributes: [{ key: ChatIdAttr, value: chatId }],
        eagerAsk: true,
        input: {
          question: {
            tenant,
            answerId,
            chatId,
            question: body.query.trim(),
            followUp: chatHeader !== undefined,
            productIds: productList(body.productId),
            author: body.author ?? 'customer',
            // The header's language, else the one the question shows; else the workflow takes the sources'.
            language: statedLanguage({ header: headers['X-Language-Iso-Code'], text: body.query }),
            now: Date.now(),
          },
          engine: deps.chat.engine,
          modelTimeoutMs: deps.chatTimeoutMs,
          deadline: ctx.state.deadline,
          fallback: deps.chatFallback,
        },
      };
      // A question that is not a follow-up is searched for as it is (its opening): its embedding can begin now.
      if (chatHeader === undefined)
        deps.prefetchQuery?.({ tenant, text: searchedQuestion(start.input.question.question) });
      const result = await answeredFirst({ runner: deps.runner, answered: deps.answered, start });
      if (result.fallback) markFallback(ctx, result.fallback.reason);
      const total = performance.now() - started;
      // What the steps did not take: starting the workflow, its tasks, and the answer coming back.
      const steps = STEPS.reduce((sum, step) => sum + (result.timings[step] ?? 0), 0);
      ctx.set('Chat-Identifier', chatId);
      ctx.set(
        'Server-Timing',
        [phaseTimings({ ...result.timings, temporal: Math.max(0, total - steps) }), `ask;dur=${total.toFixed(1)}`].join(
          ', ',
        ),
      );
      ctx.body = presentAnswer({
        id: answerId,
        answer: result.answer,
        language: result.language,
        intentTag: result.intentTag,
      });
    },
  );

  const feedback = operation('sendFeedback');
  router.post(
    feedback.path,
    guard(deps, feedback, 'model'),
    readRoute(deps, {
      operationId: 'sendFeedback',
      name: 'sendFeedback',
      operation: OPERATIONS.feedback,
      prepare: ({ body, tenant }) => ({
        tenant,
        answerId: body.id,
        details: body.feedbackDetails,
      }),
      read: async (d, { tenant, answerId, details }) => {
        // The ask stored its answer before it answered: no waiting for it.
        const answer = await findAnswer(d, { tenant, answerId });
        // 404 is not among the spec's statuses for feedback (docs/api.md).
        if (!answer) throw badRequest(`/id names no answer of this tenant: ${JSON.stringify(answerId)} `);
        await storeFeedback(d, {
          tenant,
          feedback: { answerId, details, rating: feedbackRating(details), createdAt: Date.now() },
        });
      },
      respond: () => ({ result: 'success' }),
    }),
  );
};
