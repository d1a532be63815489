/**
 * POST /v1/tag. It runs on the read path (read-path.ts), like sentiment: the tenant's tag model
 * (held in memory, domain/tags/tag.ts), the message's embedding, and the model call when a
 * chat model is configured run in this process, with the path's timeouts and retries, in the
 * searches' fair admission queue. The message is tagged as sent; `conversationId` is accepted and
 * not used.
 */
import { messageLanguage } from '../../domain/sentiment/analyze';
import { tagConversation } from '../../domain/tags/tag';
import type { SearchPhase } from '../../domain/weaviate/retrieve';
import { OPERATIONS } from '../../workflows/constants';
import type { AuthState } from '../middlewares/auth';
import { modelPolicy, READ_POLICY } from '../read-path';
import { operation } from '../schemas/operations';
import type { TagRequest, TagResponse } from '../../domain/contracts/tag';
import { guard } from './guard';
import { serverTiming } from './server-timing';
import type { RouteModule } from './types';

export const tagRoutes: RouteModule = (router, deps) => {
  const op = operation('tagConversation');
  const policy = deps.chat.engine === 'openai' ? modelPolicy(deps.chatTimeoutMs) : READ_POLICY;
  router.post(op.path, guard(deps, op, 'model'), deps.searchAdmission, async function tagMessage(ctx) {
    const body = ctx.state.input.body as TagRequest;
    const { tenant } = ctx.state.auth as AuthState;
    const language = messageLanguage(ctx.state.input.headers['X-Language-Iso-Code'], body.message);
    const timings: Partial<Record<SearchPhase, number>> = {};
    const { result, timing } = await deps.reads.run({
      operation: OPERATIONS.tag,
      tenant,
      deadline: ctx.state.deadline,
      policy,
      read: (d) => tagConversation({ ...d, chat: deps.chat, tenant, timings }, { message: body.message, language }),
    });
    ctx.set('Server-Timing', serverTiming(timing, timings));
    const response: TagResponse = { tags: result.tags };
    ctx.body = response;
  });
};
