/**
 * The one shape of a read route's handler (searches, summary, sentiment, tag, feedback): the
 * validated input typed by the operation's schema, checks that need no dependency before anything
 * starts, the read on the read path (read-path.ts) with its timeouts and retries, and the response
 * with its Server-Timing. Handlers no longer cast `ctx.state.input` themselves.
 */
import type { Middleware } from 'koa';
import type { SearchPhase } from '../../domain/weaviate/retrieve';
import type { Operation } from '../../workflows/constants';
import type { AuthState } from '../middlewares/auth';
import type { ValidatedInput } from '../middlewares/validate';
import { modelPolicy, READ_POLICY, type ReadDeps } from '../read-path';
import { serverTiming } from './server-timing';
import type { RouterDeps } from './types';

/** A request as a read route sees it: its validated body, query and headers, and the caller's tenant. */
export interface ReadRequest<Body, Query = undefined> extends ValidatedInput<Body, Query> {
  tenant: string;
}

/** Phases a read measured, for Server-Timing. */
export type Timings = Partial<Record<SearchPhase, number>>;

export interface ReadRoute<Body, Query, Input, Result> {
  /** The handler's name, in stack traces and logs. */
  name: string;
  operation: Operation;
  /** Whether a configured chat model answers it: the model's timeouts and retries then apply. */
  usesModel?: boolean;
  /** What the read needs, from the request; a 400 thrown here comes before any work. */
  prepare: (request: ReadRequest<Body, Query>) => Input;
  read: (deps: ReadDeps & { timings: Timings }, input: Input) => Promise<Result>;
  /** The response body. */
  respond: (result: Result, input: Input) => unknown;
}

/**
 * The Koa handler of a read route. Its types come from `prepare`'s parameter, typed with the
 * operation's schema types (`ReadRequest<SearchCasesRequest>`, from `domain/contracts`).
 */
export function readRoute<Body, Query, Input, Result>(
  deps: RouterDeps,
  route: ReadRoute<Body, Query, Input, Result>,
): Middleware {
  const policy = route.usesModel && deps.chat.engine === 'openai' ? modelPolicy(deps.chatTimeoutMs) : READ_POLICY;
  const handler: Middleware = async (ctx) => {
    const { body, query, headers } = ctx.state.input as ValidatedInput<Body, Query>;
    const { tenant } = ctx.state.auth as AuthState;
    const input = route.prepare({ body, query, headers, tenant });
    const timings: Timings = {};
    const { result, timing } = await deps.reads.run({
      operation: route.operation,
      tenant,
      deadline: ctx.state.deadline,
      policy,
      read: (d) => route.read({ ...d, timings }, input),
    });
    ctx.set('Server-Timing', serverTiming(timing, timings));
    ctx.body = route.respond(result, input);
  };
  return Object.defineProperty(handler, 'name', { value: route.name });
}
