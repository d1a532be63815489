/**
 * Decides which embedding call goes to the embedding server next. The server computes one call at
 * a time behind a lock, so whoever is in front of it makes everybody else wait: this scheduler
 * keeps at most `maxInFlight` calls at the server and queues the rest in the process.
 *
 * - Queries go before passages: a search waits at most for the calls already at the server.
 * - Within each kind, tenants take turns (round-robin, one call each), and each tenant's own calls
 *   keep their order. One tenant's backlog therefore delays another tenant by one call per turn,
 *   not by the whole backlog.
 * - Passages are not starved by a stream of queries: after `passageEvery` server calls of queries
 *   in a row while passages wait, one passage call goes first.
 * - Calls that say they may share a server call (`runBatched`, the same batcher) go together: when
 *   one of them leaves the queue, the others waiting join it, tenants in turn (one call each per
 *   turn, each tenant's oldest first), as long as their summed cost fits the batcher's `maxCost`.
 *   A server call carries a fixed cost of its own (HTTP, and with the local server a stall of the
 *   connection), which several short queries then pay once; the cost bound keeps what a later
 *   query may have to wait for no longer than one full call of that lane.
 * - A waiting call whose signal aborts leaves the queue at once (it never reaches the server). One
 *   whose signal aborts while its batch is at the server is rejected at once; the server call is
 *   aborted only when every call in it has given up.
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

/**
 * Calls of one batcher may go to the server as one: `send` gets their items in the order taken
 * and returns one output per item, in the same order.
 */
export interface Batcher<I, O> {
  /** The most the items of one server call may cost together (a single item above it goes alone). */
  maxCost: number;
  send(items: I[], signal: AbortSignal): Promise<O[]>;
}

/** One caller's call, waiting or at the server. */
interface Job {
  tenant: string;
  batcher: Batcher<unknown, unknown>;
  item: unknown;
  cost: number;
  signal?: AbortSignal;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  /** Set while the job waits: removes it from the queue when its signal aborts. */
  onAbort?: () => void;
  /** Called when the job goes to the server. */
  onStart?: () => void;
}

/** One kind's waiting calls: a FIFO per tenant, tenants in turn order (Map keeps insertion order). */
class TenantQueues {
  private readonly queues = new Map<string, Job[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(job: Job): void {
    const q = this.queues.get(job.tenant);
    if (q) q.push(job);
    else this.queues.set(job.tenant, [job]);
    this.count += 1;
  }

  /**
   * The next tenant's oldest call, then the oldest calls of the following tenants in turn (several
   * rounds if need be) that `joins` accepts; each tenant that gave a call goes to the end of the
   * turn order, so a tenant passed over keeps its place at the front.
   */
  shiftBatch(joins: (job: Job, taken: readonly Job[]) => boolean): Job[] {
    const taken: Job[] = [];
    for (let tookOne = true; tookOne;) {
      tookOne = false;
      for (const [tenant, q] of [...this.queues]) {
        if (taken.length > 0 && !joins(q[0], taken)) continue;
        taken.push(this.shiftFrom(tenant, q));
        tookOne = true;
      }
    }
    return taken;
  }

  private shiftFrom(tenant: string, q: Job[]): Job {
    const job = q.shift()!;
    this.queues.delete(tenant);
    if (q.length > 0) this.queues.set(tenant, q);
    this.count -= 1;
    return job;
  }

  remove(job: Job): boolean {
    const q = this.queues.get(job.tenant);
    const i = q ? q.indexOf(job) : -1;
    if (!q || i < 0) return false;
    q.splice(i, 1);
    if (q.length === 0) this.queues.delete(job.tenant);
    this.count -= 1;
    return true;
  }
}

/** Whether `job` may join the server call of `taken`: the same batcher, and the summed cost fits. */
function joinsBatch(job: Job, taken: readonly Job[]): boolean {
  const { batcher } = taken[0];
  if (job.batcher !== batcher) return false;
  const cost = taken.reduce((sum, j) => sum + j.cost, 0);
  return cost + job.cost <= batcher.maxCost;
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

  /** Calls waiting in the process (not yet sent), per kind. */
  get pending(): Record<CallKind, number> {
    return { query: this.waiting.query.size, passage: this.waiting.passage.size };
  }

  /** Server calls in flight (a batch counts once). */
  get running(): number {
    return this.inFlight;
  }

  /** Runs `call` alone when its turn comes; rejects with the signal's reason if it aborts first. */
  run<T>(o: { tenant: string; kind: CallKind; signal?: AbortSignal }, call: () => Promise<T>): Promise<T> {
    const alone: Batcher<null, T> = { maxCost: 0, send: async () => [await call()] };
    return this.runBatched({ ...o, item: null, cost: 0, batcher: alone });
  }

  /**
   * Runs `item` when its turn comes, in one server call with other waiting items of the same
   * `batcher` that fit; resolves with its own output. Rejects with the signal's reason if the
   * signal aborts before the output arrives.
   */
  runBatched<I, O>(o: {
    tenant: string;
    kind: CallKind;
    signal?: AbortSignal;
    item: I;
    cost: number;
    batcher: Batcher<I, O>;
    /** Called when the item goes to the server (its wait in the queue is over). */
    onStart?: () => void;
  }): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (o.signal?.aborted) return reject(o.signal.reason);
      const job: Job = {
        tenant: o.tenant,
        batcher: o.batcher as Batcher<unknown, unknown>,
        item: o.item,
        cost: o.cost,
        signal: o.signal,
        resolve: resolve as (value: unknown) => void,
        reject,
        onStart: o.onStart,
      };
      if (o.signal) {
        const signal = o.signal;
        job.onAbort = () => {
          if (this.waiting[o.kind].remove(job)) reject(signal.reason);
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.waiting[o.kind].push(job);
      this.dispatch();
    });
  }

  private next(): Job[] {
    const { query, passage } = this.waiting;
    if (query.size > 0 && (passage.size === 0 || this.queriesInARow < this.passageEvery)) {
      this.queriesInARow = passage.size > 0 ? this.queriesInARow + 1 : 0;
      return query.shiftBatch(joinsBatch);
    }
    this.queriesInARow = 0;
    return passage.shiftBatch(joinsBatch);
  }

  private dispatch(): void {
    while (this.inFlight < this.o.maxInFlight) {
      const jobs = this.next();
      if (jobs.length === 0) return;
      this.start(jobs);
    }
  }

  /** Sends one server call for `jobs` and settles each job with its own output. */
  private start(jobs: Job[]): void {
    this.inFlight += 1;
    const controller = new AbortController();
    let live = jobs.length;
    const settled = new Set<Job>();
    const settle = (job: Job, outcome: () => void) => {
      if (settled.has(job)) return;
      settled.add(job);
      outcome();
    };
    const listeners = jobs.map((job) => {
      if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
      job.onStart?.();
      const onAbort = () => {
        settle(job, () => job.reject(job.signal!.reason));
        live -= 1;
        if (live === 0) controller.abort(job.signal!.reason);
      };
      job.signal?.addEventListener('abort', onAbort, { once: true });
      return onAbort;
    });
    // The place is free again before the callers hear the outcome.
    const done = () => {
      jobs.forEach((job, i) => job.signal?.removeEventListener('abort', listeners[i]));
      this.inFlight -= 1;
      this.dispatch();
    };
    let pending: Promise<unknown[]>;
    try {
      pending = jobs[0].batcher.send(
        jobs.map((j) => j.item),
        controller.signal,
      );
    } catch (err) {
      pending = Promise.reject(err);
    }
    pending.then(
      (outputs) => {
        done();
        if (outputs.length !== jobs.length) {
          const err = new Error(`a batch of ${jobs.length} calls returned ${outputs.length} outputs`);
          return jobs.forEach((job) => settle(job, () => job.reject(err)));
        }
        jobs.forEach((job, i) => settle(job, () => job.resolve(outputs[i])));
      },
      (err) => {
        done();
        jobs.forEach((job) => settle(job, () => job.reject(err)));
      },
    );
  }
}
