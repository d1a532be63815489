/**
 * POST /v1/control/autoeval/evaluate: resolves the rules (the request's own, else its use case's,
 * else the `default` use case's) and grades the output in a workflow (workflows/evaluate.ts).
 */
import { randomUUID } from 'node:crypto';
import { UseCaseError } from '../../domain/evaluation/use-cases';
import { evaluateWorkflow } from '../../workflows';
import { MAX_ITEM_BYTES, OPERATIONS } from '../../workflows/constants';
import { ApiError, badRequest, payloadTooLarge } from '../errors';
import type { Logger } from '../logger';
import type { EvaluateRequest, Rule } from '../../domain/contracts/evaluation';
import type { OperationContext } from '../request-state';
import { operation } from '../schemas/operations';
import { guard } from './guard';
import { markFallback } from './read-route';
import type { RouteModule, RouterDeps } from './types';

export const DEFAULT_USE_CASE = 'default';

/** The rules a request is graded against, and the use case they came from. */
function resolveRules(
  deps: RouterDeps,
  o: { tenant: string; body: EvaluateRequest; log?: Logger },
): { rules: Rule[]; useCase?: string } {
  if (o.body.rules) return { rules: o.body.rules };
  const name = o.body.use_case ?? DEFAULT_USE_CASE;
  let useCase;
  try {
    useCase = deps.useCases.get(name, o.tenant);
  } catch (err) {
    if (!(err instanceof UseCaseError)) throw err;
    // The operator's file is broken: not the client's fault, and its text is for the operator.
    o.log?.error({ err: err.message }, 'invalid use-case file');
    throw new ApiError(
      503,
      `use case ${JSON.stringify(name)} is unavailable: its file is invalid (the API log says where)`,
    );
  }
  if (!useCase) throw badRequest(`/use_case names no use case: ${JSON.stringify(name)}`);
  return { rules: useCase.rules, useCase: name };
}

export const evaluateRoutes: RouteModule = (router, deps) => {
  const op = operation('evaluate');
  router.post(op.path, guard(deps, op, 'model'), async function evaluate(ctx: OperationContext<'evaluate'>) {
    const body = ctx.state.input.body;
    const { tenant } = ctx.state.auth;
    const { rules, useCase } = resolveRules(deps, { tenant, body, log: ctx.state.log });
    const input = { tenant, useCase, messages: body.messages, output: body.output, rules };
    const engine = { engine: deps.chat.engine, fallback: deps.chatFallback, deadline: ctx.state.deadline };
    // The input travels in the workflow's history: it must fit a Temporal payload.
    const bytes = Buffer.byteLength(JSON.stringify(input));
    if (bytes > MAX_ITEM_BYTES)
      throw payloadTooLarge(
        `the messages, output and rules are ${bytes} bytes as JSON; evaluate takes at most ${MAX_ITEM_BYTES}`,
      );
    const { fallback, ...grading } = await deps.runner.execute({
      workflow: evaluateWorkflow,
      operation: OPERATIONS.evaluate,
      tenant,
      key: randomUUID(),
      input: { ...input, ...engine },
      deadline: ctx.state.deadline,
      requestId: ctx.state.requestId,
    });
    if (fallback) markFallback(ctx, fallback.reason);
    ctx.body = grading;
  });
};
