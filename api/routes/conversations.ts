/**
 * The conversation endpoints; for now POST /v1/summary. It runs on the read path (read-path.ts),
 * like ask: the case look-up and the summary run in this process, with the path's timeouts and
 * retries (the model's own when a chat model is configured); the work on the text runs on the
 * API's CPU threads (read-cpu.ts). The text to summarize is the body's; when the body has none,
 * the case that `conversationId` names (its public text only).
 */
import type { ConversationText } from '../../domain/summary/conversation';
import { caseConversation, hasText, summarize } from '../../domain/summary/summarize';
import { OPERATIONS } from '../../workflows/constants';
import { badRequest } from '../errors';
import { presentSummary } from '../presenters/summary';
import { operation } from '../schemas/operations';
import { guard } from './guard';
import { readCpu } from './read-cpu';
import { readRoute } from './read-route';
import type { RouteModule } from './types';

const NO_TEXT = 'at least one of /subject, /description, /comments must be non-empty';

export const conversationsRoutes: RouteModule = (router, deps) => {
  const op = operation('summarize');
  router.post(
    op.path,
    guard(deps, op, 'model'),
    readRoute(deps, {
      operationId: 'summarize',
      name: 'summarizeConversation',
      operation: OPERATIONS.summary,
      usesModel: true,
      prepare: ({ body, headers, tenant }) => {
        const own: ConversationText = {
          subject: body.subject,
          description: body.description,
          comments: body.comments?.map((c) => c.comment),
        };
        if (!hasText(own) && !body.conversationId) throw badRequest(NO_TEXT);
        return {
          tenant,
          own,
          conversationId: body.conversationId,
          header: headers['X-Language-Iso-Code'],
          format: body.format ?? 'markdown',
        };
      },
      read: async (d, { tenant, own, conversationId, header }) => {
        let conversation = own;
        if (!hasText(own)) {
          const stored = await caseConversation(d, { tenant, caseId: conversationId! });
          // 404 is not among the spec's statuses for summary (docs/api.md).
          if (!stored)
            throw badRequest(
              `/conversationId names no uploaded case of this tenant: ${JSON.stringify(conversationId)}; send the conversation's text instead (${NO_TEXT})`,
            );
          if (!hasText(stored))
            throw badRequest(
              `/conversationId names a case with no public text to summarize: ${JSON.stringify(conversationId)}; ${NO_TEXT}`,
            );
          conversation = stored;
        }
        // Its language, the built-in summary or the model's prompt: on the API's CPU threads.
        return summarize(
          { chat: d.chat, signal: d.signal, timings: d.timings, cpu: readCpu(deps.cpu, { tenant, signal: d.signal }) },
          { conversation, header },
        );
      },
      respond: (result, { format }) => presentSummary(result.draft, format),
    }),
  );
};
