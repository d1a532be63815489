/**
 * The one shape of a read route's handler (searches, summary, sentiment, tag, feedback): the
 * validated input typed by the operation's schema, checks that need no dependency before anything
 * starts, the read on the read path (read-path.ts) with its timeouts and retries, and the response
 * with its Server-Timing. Handlers no longer cast `ctx.state.input` themselves.
 *
 * A route that a chat model answers gets the model's gateway, its calls counted as the tenant's.
 * With CHAT_FALLBACK=local, when the model fails it (down, rate-limited past the retries, unreadable,
 * too slow), the read runs again with the built-in engine, which answers with the header
 * `X-Engine-Fallback: local`, and the log says why. The model's read ends FALLBACK_RESERVE_MS
 * before the request's deadline, so the local engine has time to answer before it.
 */
import type { Context } from 'koa';
import { forTenant, LOCAL_CHAT, type ChatGateway } from '../../domain/models/chat';
import type { SearchPhase } from '../../domain/timings';
import { FALLBACK_RESERVE_MS, type Operation } from '../../workflows/constants';
import { ApiError } from '../errors';
import { modelPolicy, READ_POLICY, type ReadDeps, type ReadPolicy } from '../read-path';
import type { OperationInput, OperationMiddleware } from '../request-state';
import type { OperationId } from '../schemas/operations';
import { serverTiming } from './server-timing';
import { readLargeBody } from './read-cpu';
import { isReadBodyOperation } from '../../domain/contracts/read-body';
import type { RouterDeps } from './types';
import { modelFallbacks } from '../../domain/observability/metrics';
import { operationOf } from '../middlewares/request-metrics';

/** A request of operation `Id` as a read route sees it: its validated body, query and headers, and the tenant. */
export type ReadRequest<Id extends OperationId> = OperationInput<Id> & { tenant: string };

/** Phases a read measured, for Server-Timing. */
export type Timings = Partial<Record<SearchPhase, number>>;

export interface ReadRoute<Id extends OperationId, Input, Result> {
  /** The operation (schemas/operations.ts) whose validated input the route reads. */
  operationId: Id;
  /** The handler's name, in stack traces and logs. */
  name: string;
  operation: Operation;
  /** Whether a configured chat model answers it: the model's timeouts and retries then apply. */
  usesModel?: boolean;
  /** Timeouts and retries of the read with the built-in engine, when not READ_POLICY's. */
  localPolicy?: ReadPolicy;
  /** What the read needs, from the request; a 400 thrown here comes before any work. */
  prepare: (request: ReadRequest<Id>) => Input;
  read: (deps: ReadDeps & { timings: Timings; chat: ChatGateway }, input: Input) => Promise<Result>;
  /** The response body. */
  respond: (result: Result, input: Input) => unknown;
}

/** The header an answer of the built-in engine carries when it stood in for the model. */
export const FALLBACK_HEADER = 'X-Engine-Fallback';

/**
 * A gateway that notes whether the model failed the read: a call of it failed, was still running
 * when the read gave up, or answered and the read then failed with a 5xx (the engine could not use
 * the reply); and the tokens its calls spent.
 */
function watched(chat: ChatGateway) {
  const state = { failed: false, pending: 0, answered: false };
  const tokens = { promptTokens: 0, completionTokens: 0 };
  const gateway: ChatGateway = chat.complete
    ? {
        ...chat,
        complete: async (call) => {
          state.pending += 1;
          try {
            const reply = await chat.complete!(call);
            state.answered = true;
            tokens.promptTokens += reply.usage.promptTokens;
            tokens.completionTokens += reply.usage.completionTokens;
            return reply;
          } catch (err) {
            state.failed = true;
            throw err;
          } finally {
            state.pending -= 1;
          }
        },
      }
    : chat;
  const modelFailed = (err: unknown) =>
    state.failed || state.pending > 0 || (state.answered && err instanceof ApiError && err.code >= 500);
  return { gateway, modelFailed, tokens: () => ({ ...tokens }) };
}

/** Says in the response and the log that the built-in engine answered for the model, and why (`reason`: the model's failure). */
export function markFallback(ctx: Context, reason: unknown): void {
  ctx.set(FALLBACK_HEADER, 'local');
  modelFallbacks.inc({ operation: operationOf(ctx.method, ctx.path) });
  ctx.state.log?.warn(
    { fallback: 'local', reason: reason instanceof Error ? reason.message : String(reason) },
    'the chat model failed; the built-in engine answered',
  );
}

/**
 * The request's validated input; a large body left as bytes (middlewares/body.ts, offload) is read
 * and checked first, on a CPU thread in its tenant's turn (domain/contracts/read-body.ts).
 */
async function requestInput<Id extends OperationId>(o: {
  ctx: Parameters<OperationMiddleware<Id>>[0];
  deps: RouterDeps;
  operationId: Id;
}): Promise<OperationInput<Id>> {
  const { ctx, deps, operationId } = o;
  const { rawBody } = ctx.state;
  if (!rawBody || !isReadBodyOperation(operationId)) return ctx.state.input;
  const reading = await readLargeBody({
    pool: deps.cpu,
    tenant: ctx.state.auth.tenant,
    task: 'readRequestBody',
    input: { bytes: rawBody, operation: operationId },
  });
  return { ...ctx.state.input, body: reading.body } as OperationInput<Id>;
}

/**
 * The Koa handler of a read route. `prepare` receives the input typed by the operation's schemas
 * (request-state.ts, OperationInputs), the operation named by `operationId`.
 */
export function readRoute<Id extends OperationId, Input, Result>(
  deps: RouterDeps,
  route: ReadRoute<Id, Input, Result>,
): OperationMiddleware<Id> {
  const model = route.usesModel && deps.chat.engine === 'openai';
  const fallback = model && deps.chatFallback === 'local';
  const handler: OperationMiddleware<Id> = async (ctx) => {
    const { tenant } = ctx.state.auth;
    const input = route.prepare({ ...(await requestInput({ ctx, deps, operationId: route.operationId })), tenant });
    const timings: Timings = {};
    const { gateway, modelFailed, tokens } = watched(forTenant(model ? deps.chat : LOCAL_CHAT, tenant));
    const run = (chat: ChatGateway, deadline: number) =>
      deps.reads.run({
        operation: route.operation,
        tenant,
        deadline,
        policy: chat.complete ? modelPolicy(deps.chatTimeoutMs) : (route.localPolicy ?? READ_POLICY),
        read: (d) => route.read({ ...d, timings, chat }, input),
        tokens: chat.complete ? tokens : undefined,
      });
    let outcome;
    try {
      // A deadline too close for a reserve leaves the model all of it (and no fallback the time to run).
      const reserved = ctx.state.deadline - FALLBACK_RESERVE_MS;
      outcome = await run(gateway, fallback && reserved > Date.now() ? reserved : ctx.state.deadline);
    } catch (err) {
      if (!fallback || !modelFailed(err)) throw err;
      outcome = await run(LOCAL_CHAT, ctx.state.deadline);
      markFallback(ctx, err);
    }
    ctx.set('Server-Timing', serverTiming(outcome.timing, timings));
    ctx.body = route.respond(outcome.result, input);
  };
  return Object.defineProperty(handler, 'name', { value: route.name });
}
