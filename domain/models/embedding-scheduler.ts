/**
 * Decides which embedding call goes to the embedding server next. The server computes one call at
 * a time behind a lock, so whoever is in front of it makes everybody else wait: this scheduler
 * keeps at most `maxInFlight` calls at the server and queues the rest in the worker.
 *
 * - Queries go before passages: a search waits at most for the calls already at the server.
 * - Within each kind, tenants take turns (round-robin, one call each), and each tenant's own calls
 *   keep their order. One tenant's backlog therefore delays another tenant by one call per turn,
 *   not by the whole backlog.
 * - Passages are not starved by a stream of queries: after `passageEvery` query calls in a row
 *   while passages wait, one passage call goes first.
 * - A waiting call whose signal aborts leaves the queue at once (it never reaches the server).
 *
 * It only orders calls; it does not know about HTTP. Each process that embeds has its own: the
 * worker's orders passages (uploads), the API's orders queries (searches run in the API process).
 * Across them, a query waits at the server for at most the worker's one passage call.
 */

export type CallKind = 'query' | 'passage';

export interface SchedulerOptions {
  /** Calls at the server at once. */
  maxInFlight: number;
  /** Query calls in a row, while passages wait, before one passage call goes first. */
  passageEvery?: number;
}

interface Job {
  start: () => void;
}

/** One kind's waiting calls: a FIFO per tenant, tenants in turn order (Map keeps insertion order). */
class TenantQueues {
  private readonly queues = new Map<string, Job[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(tenant: string, job: Job): void {
    const q = this.queues.get(tenant);
    if (q) q.push(job);
    else this.queues.set(tenant, [job]);
    this.count += 1;
  }

  /** The next tenant's oldest call; that tenant then goes to the end of the turn order. */
  shift(): Job | undefined {
    const first = this.queues.entries().next();
    if (first.done) return undefined;
    const [tenant, q] = first.value;
    const job = q.shift()!;
    this.queues.delete(tenant);
    if (q.length > 0) this.queues.set(tenant, q);
    this.count -= 1;
    return job;
  }

  remove(tenant: string, job: Job): boolean {
    const q = this.queues.get(tenant);
    const i = q ? q.indexOf(job) : -1;
    if (!q || i < 0) return false;
    q.splice(i, 1);
    if (q.length === 0) this.queues.delete(tenant);
    this.count -= 1;
    return true;
  }
}

export class EmbeddingScheduler {
  private readonly waiting: Record<CallKind, TenantQueues> = { query: new TenantQueues(), passage: new TenantQueues() };
  private inFlight = 0;
  private queriesInARow = 0;
  private readonly passageEvery: number;

  constructor(private readonly o: SchedulerOptions) {
    if (!(o.maxInFlight >= 1)) throw new Error('maxInFlight must be at least 1');
    this.passageEvery = o.passageEvery ?? 16;
  }

  /** Calls waiting in the worker (not yet sent), per kind. */
  get pending(): Record<CallKind, number> {
    return { query: this.waiting.query.size, passage: this.waiting.passage.size };
  }

  get running(): number {
    return this.inFlight;
  }

  /** Runs `call` when its turn comes; rejects with the signal's reason if it aborts while waiting. */
  run<T>(o: { tenant: string; kind: CallKind; signal?: AbortSignal }, call: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (o.signal?.aborted) return reject(o.signal.reason);
      const onAbort = () => {
        if (this.waiting[o.kind].remove(o.tenant, job)) reject(o.signal!.reason);
      };
      const job: Job = {
        start: () => {
          o.signal?.removeEventListener('abort', onAbort);
          this.inFlight += 1;
          // The place is free again before the caller hears the outcome.
          const done = () => {
            this.inFlight -= 1;
            this.dispatch();
          };
          let pending: Promise<T>;
          try {
            pending = call();
          } catch (err) {
            pending = Promise.reject(err);
          }
          pending.then(
            (value) => (done(), resolve(value)),
            (err) => (done(), reject(err)),
          );
        },
      };
      o.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting[o.kind].push(o.tenant, job);
      this.dispatch();
    });
  }

  private next(): Job | undefined {
    const { query, passage } = this.waiting;
    if (query.size > 0 && (passage.size === 0 || this.queriesInARow < this.passageEvery)) {
      this.queriesInARow = passage.size > 0 ? this.queriesInARow + 1 : 0;
      return query.shift();
    }
    this.queriesInARow = 0;
    return passage.shift();
  }

  private dispatch(): void {
    while (this.inFlight < this.o.maxInFlight) {
      const job = this.next();
      if (!job) return;
      job.start();
    }
  }
}
