/**
 * Whether each dependency is up, known without waiting on it: a circuit breaker per dependency
 * (Temporal, Weaviate, the embedding servers). A probe runs in the background every `intervalMs`
 * (the liveness part of /readyz's probes); a dependency that refuses connections is marked down
 * at once, one that stops answering after `failuresToOpen` probes in a row (Temporal and Weaviate:
 * 3; the embedding servers, which answer slowly while they embed an upload, only by refusing), and
 * it is up again at its first answered probe. Requests that
 * need a dependency that is down answer 503 with `Retry-After` before doing any work
 * (`requireUp`), instead of waiting for the client libraries' own reconnection attempts, which take
 * 20 s and more. A request that was already running keeps its deadline (408).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from './logger';
import { causeChain } from '../domain/failures';
import { dependencyProbeDuration, dependencyUp } from '../domain/observability/metrics';
import { ApiError } from './errors';
import { RETRY_AFTER_503_S } from './middlewares/error-handler';
import { within } from './readiness';

/** `embeddings`: every embedding server (passages, short queries, the English encoder); `chat_model`: a self-hosted one. */
export type DependencyName = 'temporal' | 'weaviate' | 'embeddings' | 'chat_model';

/** Words a client may read for each dependency (never the dependency's own error text). */
const DESCRIPTIONS: Record<DependencyName, string> = {
  temporal: 'the workflow service',
  weaviate: 'the vector store',
  embeddings: 'the embedding service',
  chat_model: 'the chat model',
};

export interface DependencyHealthOptions {
  /** The chat model's only when one is configured; no operation waits for it (a model's failure falls back). */
  probes: Record<Exclude<DependencyName, 'chat_model'>, () => Promise<unknown>> &
    Partial<Record<DependencyName, () => Promise<unknown>>>;
  logger?: Logger;
  /** Time between probes of one dependency. */
  intervalMs?: number;
  /** Time one probe may take before it counts as failed. */
  probeTimeoutMs?: number;
  /**
   * Failed probes in a row (timeouts, errors other than a refused connection) that mark a
   * dependency down; absent for one, only a refused connection does.
   */
  failuresToOpen?: Partial<Record<DependencyName, number>>;
}

interface State {
  up: boolean;
  /** Failed probes in a row. */
  failures: number;
}

/** A refused or reset connection says at once that nothing is listening. */
function refused(err: unknown): boolean {
  for (const e of causeChain(err, 6)) {
    if (typeof e.code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(e.code)) return true;
    if (/ECONNREFUSED|Connection refused|UNAVAILABLE: No connection established/i.test(String(e.message ?? '')))
      return true;
  }
  return false;
}

export class DependencyHealth {
  private readonly state = new Map<DependencyName, State>();
  private stopped = false;
  private readonly loops: Promise<void>[] = [];

  constructor(private readonly o: DependencyHealthOptions) {
    for (const name of Object.keys(o.probes) as DependencyName[]) {
      this.state.set(name, { up: true, failures: 0 });
      dependencyUp.set({ dependency: name }, 1);
    }
  }

  /** Starts probing every dependency in the background. */
  start(): this {
    for (const name of this.state.keys()) this.loops.push(this.probeLoop(name));
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  isUp(name: DependencyName): boolean {
    return this.state.get(name)?.up ?? true;
  }

  /** 503 with Retry-After when one of `names` is down; nothing otherwise. */
  requireUp(names: readonly DependencyName[]): void {
    const down = names.find((n) => !this.isUp(n));
    if (down) throw this.unavailable(down);
  }

  private unavailable(name: DependencyName): ApiError {
    return new ApiError(503, `${DESCRIPTIONS[name]} is unavailable; try again shortly`, {
      'Retry-After': String(RETRY_AFTER_503_S),
    }).because('dependency_unavailable', name);
  }

  private mark(name: DependencyName, up: boolean, err?: unknown): void {
    const s = this.state.get(name)!;
    s.failures = up ? 0 : s.failures;
    if (s.up === up) return;
    s.up = up;
    dependencyUp.set({ dependency: name }, up ? 1 : 0);
    if (up) this.o.logger?.info({ dependency: name }, 'dependency is up again');
    else
      this.o.logger?.warn(
        { dependency: name, err: err && String((err as Error).message ?? err) },
        'dependency is down: requests that need it answer 503',
      );
  }

  private async probeLoop(name: DependencyName): Promise<void> {
    const interval = this.o.intervalMs ?? 500;
    const timeout = this.o.probeTimeoutMs ?? 2000;
    const failuresToOpen = this.o.failuresToOpen?.[name] ?? Infinity;
    while (!this.stopped) {
      const started = Date.now();
      const probe = this.o.probes[name]!;
      const timer = dependencyProbeDuration.startTimer({ dependency: name });
      try {
        await within(timeout, probe()).finally(timer);
        this.mark(name, true);
      } catch (err) {
        const s = this.state.get(name)!;
        s.failures += 1;
        if (refused(err) || s.failures >= failuresToOpen) this.mark(name, false, err);
      }
      await sleep(Math.max(0, interval - (Date.now() - started)), undefined, { ref: false });
    }
  }
}
