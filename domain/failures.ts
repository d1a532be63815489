/**
 * Turns errors of the services activities talk to into Temporal failures with stable types,
 * which api/temporal-errors.ts maps to HTTP: DependencyTimeout → 504, DependencyUnavailable → 503,
 * InvalidInput and InputTooCostly → 400, NotFound → 404. Transient failures stay retryable; the activity's retry
 * policy bounds them. The messages are written here and name only the kind of service: a
 * dependency's own error text never reaches a client.
 */
import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

export const FAILURE_TYPES = {
  timeout: 'DependencyTimeout',
  unavailable: 'DependencyUnavailable',
  invalid: 'InvalidInput',
  notFound: 'NotFound',
  /** One input took longer than its CPU budget (domain/cpu/pool.ts); not retried. */
  tooCostly: 'InputTooCostly',
} as const;

const TIMEOUT_NAMES = new Set(['WeaviateRequestTimeoutError', 'TimeoutError', 'AbortError']);
const UNAVAILABLE_NAMES = new Set(['WeaviateGRPCUnavailableError', 'WeaviateStartUpError']);
/** Connection failures, Node's and those of its fetch (undici: a socket closed by the other side mid-request). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
/**
 * A restarted Weaviate reports ready a moment before it has restored its schema; meanwhile a query
 * fails with "could not find class X in schema". Our collections always exist (created at start),
 * so this means the store is still starting: retried, then 503, never 500.
 */
const STORE_STARTING = /could not find class \w+ in schema/;
/**
 * A replicated Weaviate that cannot reach enough copies of a shard for the consistency level (two
 * of three nodes down, or a node dying mid-request), or whose Raft cluster has no leader for a
 * moment after its leader died: the store is unavailable, not the request wrong. Weaviate sends
 * these as plain errors (gRPC status UNKNOWN, or per object in a batch). A node whose peer died
 * while it forwarded an object reports its own gRPC client's `Canceled ... the client connection
 * is closing` for that object (bench:faults, the Raft leader killed).
 */
const REPLICAS_UNREACHABLE =
  /cannot achieve consistency level|cannot reach enough replicas|failed to query leader|leader not found|no leader|broadcast:|connection refused|the client connection is closing/i;

/** Whether an error message of the store (also one object's error in a batch) means it is unavailable for now. */
export const storeUnavailable = (message: string) => STORE_STARTING.test(message) || REPLICAS_UNREACHABLE.test(message);

/** The fields of an error (or of any thrown object) that the checks of a cause chain read. */
export interface ErrorLink {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

/**
 * An error and its causes (`cause`), outermost first, at most `max` of them; the chain ends at the first cause
 * that is not an object (none, or a thrown string, which carries no code).
 */
export function* causeChain(err: unknown, max: number): Generator<ErrorLink> {
  for (let e = err, n = 0; typeof e === 'object' && e !== null && n < max; n++) {
    const link: ErrorLink = e;
    yield link;
    e = link.cause;
  }
}

function causeCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (const e of causeChain(err, Infinity)) {
    if (typeof e.code === 'string') codes.push(e.code);
    if (codes.length >= 5) break;
  }
  return codes;
}

/** Which service an error came from, in words a client may read. */
function dependencyOf(err: unknown): string {
  if (err instanceof APIError || err instanceof APIConnectionError) return 'the model service';
  // The Weaviate client's own errors, and the gRPC errors of its calls (nice-grpc's ClientError names the method's path).
  if (
    /^Weaviate/.test((err as Error)?.name ?? '') ||
    /^\/weaviate\./.test(String((err as { path?: unknown })?.path ?? ''))
  )
    return 'the vector store';
  return 'a dependency';
}

/**
 * A failure of `type` whose message is ours, safe to show a client; the dependency's own text,
 * which may carry its internals or echo the input, goes only into the details (logged, never sent).
 */
const failure = (o: { type: string; message: string; upstream: string; retryable: boolean; retryAfterMs?: number }) =>
  ApplicationFailure.create({
    type: o.type,
    message: o.message,
    details: [o.upstream],
    nonRetryable: !o.retryable,
    nextRetryDelay: o.retryAfterMs,
  });

/** A rate-limited provider's Retry-After (seconds), as the delay before the next attempt: at most a minute. */
const RETRY_AFTER_MAX_MS = 60_000;
function retryAfterMs(err: APIError): number | undefined {
  const seconds = Number((err.headers as Headers | undefined)?.get?.('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, RETRY_AFTER_MAX_MS) : undefined;
}

export function toFailure(err: unknown): unknown {
  if (err instanceof ApplicationFailure) return err;
  const e = err as Error;
  const upstream = e?.message ?? String(err);
  const who = dependencyOf(err);
  if (
    err instanceof APIConnectionTimeoutError ||
    TIMEOUT_NAMES.has(e?.name) ||
    /DEADLINE_EXCEEDED|timed? ?out/i.test(upstream)
  ) {
    return failure({
      type: FAILURE_TYPES.timeout,
      message: `${who} did not answer in time`,
      upstream,
      retryable: true,
    });
  }
  if (
    err instanceof APIConnectionError ||
    UNAVAILABLE_NAMES.has(e?.name) ||
    causeCodes(err).some((c) => UNAVAILABLE_CODES.has(c)) ||
    /UNAVAILABLE|ECONNREFUSED/.test(upstream) ||
    storeUnavailable(upstream)
  ) {
    return failure({ type: FAILURE_TYPES.unavailable, message: `${who} is unavailable`, upstream, retryable: true });
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    if (err.status === 429 || err.status >= 500) {
      const retryAfter = err.status === 429 ? retryAfterMs(err) : undefined;
      return failure({
        type: FAILURE_TYPES.unavailable,
        message: `${who} failed (status ${err.status})`,
        upstream,
        retryable: true,
        retryAfterMs: retryAfter,
      });
    }
    return failure({
      type: FAILURE_TYPES.invalid,
      message: `${who} refused the input (status ${err.status})`,
      upstream,
      retryable: false,
    });
  }
  return err;
}

/** Wraps an activity so whatever it throws is classified first. */
export function classified<A, R>(fn: (input: A) => Promise<R>): (input: A) => Promise<R> {
  return async (input: A) => {
    try {
      return await fn(input);
    } catch (err) {
      throw toFailure(err);
    }
  };
}
