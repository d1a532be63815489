/**
 * Operations whose behaviour belongs to later work (summary, tag, sentiment): they authenticate, authorise, validate and apply their cross-field rules fully, then
 * answer 501 with the error body.
 */
import { badRequest, notImplemented } from '../errors';
import { operation, type OperationId } from '../schemas/operations';
import { guard } from './guard';
import type { RouteModule } from './types';

type Body = Record<string, any>;

const CROSS_FIELD_RULES: Partial<Record<OperationId, (body: Body) => void>> = {
  summarize(body) {
    const hasText = Boolean(body.subject?.trim() || body.description?.trim() || body.comments?.some((c: Body) => c.comment?.trim()));
    if (!hasText && !body.conversationId) throw badRequest('at least one of /subject, /description, /comments must be non-empty');
  },
};

const PENDING: OperationId[] = ['summarize', 'tagConversation', 'analyzeSentiment'];

export const pendingRoutes: RouteModule = (router, deps) => {
  for (const id of PENDING) {
    const op = operation(id);
    router.post(op.path, guard(deps, op, 'model'), async function notYetImplemented(ctx) {
      CROSS_FIELD_RULES[id]?.(ctx.state.input.body as Body);
      throw notImplemented(op.operationId);
    });
  }
};
