/**
 * The read path: searches run in the API process, calling the retrieval functions directly
 * (domain/weaviate/retrieve.ts), instead of a workflow and an activity per search. A workflow
 * round trip per search cost as much as the retrieval itself (docs/benchmarks.md, bench:latency);
 * a read changes nothing, so it needs none of Temporal's durability.
 *
 * What the search activity gave is kept here, with the same numbers (workflows/proxies.ts had
 * them): an attempt may take 5 s, all attempts together 12 s, at most 3 attempts, 500 ms then
 * 1 s between them; bad input and unknown ids are not retried. A dependency that stays down or
 * slow answers 503 or 504 through the same failure types as activities (domain/failures.ts,
 * api/temporal-errors.ts); the request's deadline answers 408. Each read is counted for the
 * operators' per-tenant read log (read-log.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import type { WeaviateClient } from 'weaviate-client';
import { raceAbort } from '../domain/abort';
import { toFailure } from '../domain/failures';
import type { Embedder } from '../domain/models/embeddings';
import type { Operation } from '../workflows/constants';
import { ApiError, requestTimeout } from './errors';
import { deadlinePassed } from './middlewares/deadline';
import type { ReadLog, ReadRecord } from './read-log';
import { applicationFailureToApiError } from './temporal-errors';

export interface ReadPolicy {
  attemptTimeoutMs: number;
  totalTimeoutMs: number;
  maxAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
}

export const READ_POLICY: ReadPolicy = {
  attemptTimeoutMs: 5000,
  totalTimeoutMs: 12_000,
  maxAttempts: 3,
  initialIntervalMs: 500,
  backoffCoefficient: 2,
};

/**
 * A read that embeds a long message (sentiment, tag: up to 4 segments of 512 tokens, seconds of
 * the embedding server's time each) may wait in this process's queue behind the same tenant's other
 * such reads: its attempts last as long as the request's default deadline, so that the wait is not
 * taken for a server that does not answer. Each server call stays bounded on its own
 * (EMBEDDINGS_QUERY_TIMEOUT_MS per 256 tokens), and the request's deadline bounds the whole (408).
 */
export const LONG_TEXT_READ_POLICY: ReadPolicy = {
  ...READ_POLICY,
  attemptTimeoutMs: 60_000,
  totalTimeoutMs: 60_000,
  maxAttempts: 2,
};

/** A model call takes seconds: each attempt gets the model's own timeout and a margin, two attempts. */
export const modelPolicy = (chatTimeoutMs: number): ReadPolicy => ({
  attemptTimeoutMs: chatTimeoutMs + 5000,
  totalTimeoutMs: 2 * chatTimeoutMs + 11_000,
  maxAttempts: 2,
  initialIntervalMs: 1000,
  backoffCoefficient: 2,
});

/** What a retrieval function needs: the shared clients and this attempt's abort signal. */
export interface ReadDeps {
  weaviate: () => Promise<WeaviateClient>;
  embedder: Embedder;
  /** The tag model's English encoder, when configured. */
  english?: Embedder;
  signal: AbortSignal;
}

export interface ReadRequest<R> {
  operation: Operation;
  tenant: string;
  /** The request's deadline, epoch ms. */
  deadline: number;
  read: (deps: ReadDeps) => Promise<R>;
  /** Timeouts and retries of this read, when not the runner's own (a model call takes longer). */
  policy?: ReadPolicy;
  /** The model tokens the read spent, read when it ends, for the read log. */
  tokens?: () => ReadRecord['tokens'];
}

/** Time spent per phase of the last read, for the Server-Timing header. */
export interface ReadTiming {
  attempts: number;
  ms: number;
}

const retryable = (failure: unknown): failure is ApplicationFailure =>
  failure instanceof ApplicationFailure && !failure.nonRetryable;

export class ReadRunner {
  constructor(
    private readonly deps: {
      weaviate: () => Promise<WeaviateClient>;
      embedder: Embedder;
      english?: Embedder;
      log?: ReadLog;
    },
    private readonly policy: ReadPolicy = READ_POLICY,
  ) {}

  async run<R>(o: ReadRequest<R>): Promise<{ result: R; timing: ReadTiming }> {
    const policy = o.policy ?? this.policy;
    const started = Date.now();
    // AbortSignal.timeout takes whole milliseconds only; a Request-Timeout in seconds may have any fraction.
    const deadline = AbortSignal.timeout(Math.max(0, Math.ceil(o.deadline - started)));
    const late = () => requestTimeout(`${o.operation} did not finish before the request deadline`);
    let status = 200;
    let attempts = 0;
    try {
      // A read whose deadline has already passed is not started: nobody would get its answer.
      if (deadlinePassed(o.deadline)) throw late();
      for (let interval = policy.initialIntervalMs; ; interval *= policy.backoffCoefficient) {
        attempts += 1;
        const left = policy.totalTimeoutMs - (Date.now() - started);
        const attempt = AbortSignal.any([deadline, AbortSignal.timeout(Math.min(policy.attemptTimeoutMs, left))]);
        const outcome = await raceAbort(
          o.read({
            weaviate: this.deps.weaviate,
            embedder: this.deps.embedder,
            english: this.deps.english,
            signal: attempt,
          }),
          attempt,
        ).then(
          (result) => ({ result }),
          (err: unknown) => ({ err }),
        );
        // Work that never waited (a local engine) finishes before the deadline's timer can fire.
        if (deadline.aborted || deadlinePassed(o.deadline)) throw late();
        if (!('err' in outcome)) return { result: outcome.result, timing: { attempts, ms: Date.now() - started } };
        const failure = toFailure(outcome.err);
        const more = attempts < policy.maxAttempts && Date.now() - started + interval < policy.totalTimeoutMs;
        if (!retryable(failure) || !more)
          throw failure instanceof ApplicationFailure ? applicationFailureToApiError(failure) : outcome.err;
        await raceAbort(sleep(interval), deadline).catch(() => {
          throw late();
        });
      }
    } catch (err) {
      status = err instanceof ApiError ? err.code : 500;
      throw err;
    } finally {
      this.deps.log?.record({
        tenant: o.tenant,
        operation: o.operation,
        ms: Date.now() - started,
        status,
        tokens: o.tokens?.(),
      });
    }
  }
}
