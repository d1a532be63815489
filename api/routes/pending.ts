/**
 * Operations whose behaviour belongs to later work (tag): they authenticate, authorise, validate and apply their cross-field rules fully, then
 * answer 501 with the error body.
 */
import { notImplemented } from '../errors';
import { operation, type OperationId } from '../schemas/operations';
import { guard } from './guard';
import type { RouteModule } from './types';

type Body = Record<string, any>;

/** Rules across fields that the schema cannot say; none of the pending operations has one now. */
const CROSS_FIELD_RULES: Partial<Record<OperationId, (body: Body) => void>> = {};

const PENDING: OperationId[] = ['tagConversation'];

export const pendingRoutes: RouteModule = (router, deps) => {
  for (const id of PENDING) {
    const op = operation(id);
    router.post(op.path, guard(deps, op, 'model'), async function notYetImplemented(ctx) {
      CROSS_FIELD_RULES[id]?.(ctx.state.input.body as Body);
      throw notImplemented(op.operationId);
    });
  }
};
