/**
 * POST /v1/sentiment. It runs on the read path (read-path.ts), like ask and summary: the message's
 * embedding and the classifier (local engine) or the model call (model engine) run in this
 * process, with the path's timeouts and retries (the model's own when a chat model is
 * configured), in the searches' fair admission queue, since the local engine uses the same
 * embedding server as the searches (and, for an English message, the English encoder at the same
 * time). The message is scored as sent; `conversationId` is accepted
 * and not used.
 */
import { analyzeSentiment, messageLanguage } from '../../domain/sentiment/analyze';
import { localModel } from '../../domain/sentiment/local-engine';
import type { SearchPhase } from '../../domain/weaviate/retrieve';
import { OPERATIONS } from '../../workflows/constants';
import type { AuthState } from '../middlewares/auth';
import { modelPolicy, READ_POLICY } from '../read-path';
import { operation } from '../schemas/operations';
import type { SentimentRequest, SentimentResponse } from '../../domain/contracts/sentiment';
import { guard } from './guard';
import { serverTiming } from './server-timing';
import type { RouteModule } from './types';

export const sentimentRoutes: RouteModule = (router, deps) => {
  const op = operation('analyzeSentiment');
  const policy = deps.chat.engine === 'openai' ? modelPolicy(deps.chatTimeoutMs) : READ_POLICY;
  // A missing or damaged model file stops the API at start, not at the first request.
  if (deps.chat.engine === 'local') localModel();
  router.post(op.path, guard(deps, op, 'model'), deps.searchAdmission, async function scoreSentiment(ctx) {
    const body = ctx.state.input.body as SentimentRequest;
    const { tenant } = ctx.state.auth as AuthState;
    const language = messageLanguage(ctx.state.input.headers['X-Language-Iso-Code'], body.message);
    const timings: Partial<Record<SearchPhase, number>> = {};
    const { result, timing } = await deps.reads.run({
      operation: OPERATIONS.sentiment,
      tenant,
      deadline: ctx.state.deadline,
      policy,
      read: (d) => analyzeSentiment({ embedder: d.embedder, english: d.english, chat: deps.chat, tenant, signal: d.signal, timings }, { message: body.message, language }),
    });
    ctx.set('Server-Timing', serverTiming(timing, timings));
    const response: SentimentResponse = { sentiment: result.sentiment, label: result.label };
    ctx.body = response;
  });
};
