/**
 * POST /v1/sentiment. It runs on the read path (read-path.ts), like ask and summary: the message's
 * embedding and the classifier (local engine) or the model call (model engine) run in this
 * process, with the path's timeouts and retries (the model's own when a chat model is
 * configured), in the searches' fair admission queue, since the local engine uses the same
 * embedding server as the searches (and, for an English message, the English encoder at the same
 * time). The message is scored as sent; `conversationId` is accepted
 * and not used.
 */
import { analyzeSentiment } from '../../domain/sentiment/analyze';
import { localModel } from '../../domain/sentiment/local-engine';
import { OPERATIONS } from '../../workflows/constants';
import { operation } from '../schemas/operations';
import type { SentimentResponse } from '../../domain/contracts/sentiment';
import { guard } from './guard';
import { readCpu } from './read-cpu';
import { readRoute } from './read-route';
import type { RouteModule } from './types';
import { LONG_TEXT_READ_POLICY } from '../read-path';

export const sentimentRoutes: RouteModule = (router, deps) => {
  const op = operation('analyzeSentiment');
  // A missing or damaged model file stops the API at start, not at the first request.
  if (deps.chat.engine === 'local' || deps.chatFallback === 'local') localModel();
  router.post(
    op.path,
    guard(deps, op, 'model'),
    deps.searchAdmission,
    readRoute(deps, {
      operationId: 'analyzeSentiment',
      name: 'scoreSentiment',
      operation: OPERATIONS.sentiment,
      usesModel: true,
      localPolicy: LONG_TEXT_READ_POLICY,
      prepare: ({ body, headers, tenant }) => ({
        tenant,
        message: body.message,
        header: headers['X-Language-Iso-Code'],
      }),
      // The message's language, segments and lexicon readings (or the model's prompt): on the API's CPU threads.
      read: (d, { tenant, ...input }) =>
        analyzeSentiment({ ...d, tenant, cpu: readCpu(deps.cpu, { tenant, signal: d.signal }) }, input),
      respond: (result): SentimentResponse => ({ sentiment: result.sentiment, label: result.label }),
    }),
  );
};
