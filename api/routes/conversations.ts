/**
 * The conversation endpoints; for now POST /v1/summary. It runs on the read path (read-path.ts),
 * like ask: the case look-up and the summary run in this process, with the path's timeouts and
 * retries (the model's own when a chat model is configured). The text to summarize is the
 * body's; when the body has none, the case that `conversationId` names (its public text only).
 */
import type { ConversationText } from '../../domain/summary/conversation';
import { requestLanguage } from '../../domain/text/language';
import { caseConversation, hasText, summarize } from '../../domain/summary/summarize';
import type { SearchPhase } from '../../domain/weaviate/retrieve';
import { OPERATIONS } from '../../workflows/constants';
import { badRequest } from '../errors';
import type { AuthState } from '../middlewares/auth';
import { presentSummary } from '../presenters/summary';
import { modelPolicy, READ_POLICY } from '../read-path';
import { operation } from '../schemas/operations';
import type { SummaryRequest } from '../../domain/contracts/summary';
import { guard } from './guard';
import { serverTiming } from './server-timing';
import type { RouteModule } from './types';

const NO_TEXT = 'at least one of /subject, /description, /comments must be non-empty';

/** The request language: the header's, else the one the conversation shows, else English (text/language.ts). */
function summaryLanguage(header: unknown, c: ConversationText): string {
  const text = [c.subject, c.description, ...(c.comments ?? [])].filter(Boolean).join('\n');
  return requestLanguage({ header, text });
}

export const conversationsRoutes: RouteModule = (router, deps) => {
  const op = operation('summarize');
  const policy = deps.chat.engine === 'openai' ? modelPolicy(deps.chatTimeoutMs) : READ_POLICY;
  router.post(op.path, guard(deps, op, 'model'), async function summarizeConversation(ctx) {
    const body = ctx.state.input.body as SummaryRequest;
    const { tenant } = ctx.state.auth as AuthState;
    const own: ConversationText = { subject: body.subject, description: body.description, comments: body.comments?.map((c) => c.comment) };
    const conversationId = body.conversationId;
    if (!hasText(own) && !conversationId) throw badRequest(NO_TEXT);
    const header = ctx.state.input.headers['X-Language-Iso-Code'];
    const timings: Partial<Record<SearchPhase, number>> = {};
    const { result, timing } = await deps.reads.run({
      operation: OPERATIONS.summary,
      tenant,
      deadline: ctx.state.deadline,
      policy,
      read: async (d) => {
        let conversation = own;
        if (!hasText(own)) {
          const stored = await caseConversation(d, { tenant, caseId: conversationId! });
          // 404 is not among the spec's statuses for summary (docs/api.md).
          if (!stored) throw badRequest(`/conversationId names no uploaded case of this tenant: ${JSON.stringify(conversationId)}; send the conversation's text instead (${NO_TEXT})`);
          if (!hasText(stored)) throw badRequest(`/conversationId names a case with no public text to summarize: ${JSON.stringify(conversationId)}; ${NO_TEXT}`);
          conversation = stored;
        }
        const language = summaryLanguage(header, conversation);
        return summarize({ chat: deps.chat, signal: d.signal, timings }, { conversation, language });
      },
    });
    ctx.set('Server-Timing', serverTiming(timing, timings));
    ctx.body = presentSummary(result.draft, body.format ?? 'markdown');
  });
};
