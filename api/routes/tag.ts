/**
 * POST /v1/tag. It runs on the read path (read-path.ts), like sentiment: the tenant's tag model
 * (held in memory, domain/tags/tag.ts), the message's embedding, and the model call when a
 * chat model is configured run in this process, with the path's timeouts and retries, in the
 * searches' fair admission queue. The message is tagged as sent; `conversationId` is accepted and
 * not used.
 */
import { tagConversation } from '../../domain/tags/tag';
import { OPERATIONS } from '../../workflows/constants';
import { operation } from '../schemas/operations';
import type { TagResponse } from '../../domain/contracts/tag';
import { guard } from './guard';
import { readCpu } from './read-cpu';
import { readRoute } from './read-route';
import type { RouteModule } from './types';
import { LONG_TEXT_READ_POLICY } from '../read-path';

export const tagRoutes: RouteModule = (router, deps) => {
  const op = operation('tagConversation');
  router.post(
    op.path,
    guard(deps, op, 'model'),
    deps.searchAdmission,
    readRoute(deps, {
      operationId: 'tagConversation',
      name: 'tagMessage',
      operation: OPERATIONS.tag,
      usesModel: true,
      localPolicy: LONG_TEXT_READ_POLICY,
      prepare: ({ body, headers, tenant }) => ({
        tenant,
        message: body.message,
        header: headers['X-Language-Iso-Code'],
      }),
      // The message's language, its keywords or the model's prompt: on the API's CPU threads.
      read: (d, { tenant, ...input }) =>
        tagConversation({ ...d, tenant, cpu: readCpu(deps.cpu, { tenant, signal: d.signal }) }, input),
      respond: (result): TagResponse => ({ tags: result.tags }),
    }),
  );
};
