/**
 * Fair admission of searches, per API instance: at most `maxInFlight` searches run at once, and
 * the others wait in a queue per tenant. A freed place goes to the next tenant in turn
 * (round-robin) that has a search waiting, so one tenant's burst queues behind its own searches,
 * not in front of everyone else's.
 *
 * How many searches one tenant may run at once depends on who else searches: alone it may run
 * `maxInFlightPerTenant`; while another tenant has searched within `activeWindowMs`, only
 * `maxInFlightShared` (1). Searches share the machine's cores, so a search that runs beside k
 * others takes about k + 1 times as long: one search per busy tenant keeps a tenant's searches
 * within about twice their idle time whatever its neighbour sends.
 *
 * A waiting search that reaches its deadline answers 408 without having started anything. A tenant
 * with `maxQueuedPerTenant` searches already waiting gets 429 (Retry-After: 1).
 */
import type { Middleware } from 'koa';
import { ApiError, requestTimeout } from '../errors';
import type { AuthenticatedState } from '../request-state';

export interface FairAdmissionOptions {
  maxInFlight: number;
  /** A tenant's searches at once while no other tenant searches. */
  maxInFlightPerTenant: number;
  /** A tenant's searches at once while another tenant searches (default 1). */
  maxInFlightShared?: number;
  /** How long a tenant counts as searching after its last search (default 2,000 ms). */
  activeWindowMs?: number;
  maxQueuedPerTenant: number;
}

interface Waiter {
  admit: () => void;
}

/** The admission state, separate from Koa so that it can be tested and inspected. */
export class FairQueue {
  private inFlight = 0;
  private readonly running = new Map<string, number>();
  /** Tenants with waiting searches, in turn order (a Map keeps insertion order). */
  private readonly waiting = new Map<string, Waiter[]>();
  /** When each tenant last started or finished a search. */
  private readonly lastSeen = new Map<string, number>();

  constructor(
    readonly o: FairAdmissionOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get active(): number {
    return this.inFlight;
  }

  queued(tenant?: string): number {
    if (tenant !== undefined) return this.waiting.get(tenant)?.length ?? 0;
    let n = 0;
    for (const q of this.waiting.values()) n += q.length;
    return n;
  }

  /**
   * Resolves with a release function once the tenant may run; rejects with 408 if `deadline`
   * (epoch ms) passes while waiting, or 429 if the tenant's queue is full.
   */
  acquire(tenant: string, deadline: number): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.lastSeen.set(tenant, this.now());
        this.inFlight -= 1;
        const left = (this.running.get(tenant) ?? 1) - 1;
        if (left > 0) this.running.set(tenant, left);
        else this.running.delete(tenant);
        this.dispatch();
      };
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        admit: () => {
          if (timer) clearTimeout(timer);
          resolve(release);
        },
      };
      const queue = this.waiting.get(tenant) ?? [];
      if (queue.length >= this.o.maxQueuedPerTenant) {
        reject(
          new ApiError(
            429,
            `too many requests of this tenant are waiting for their turn (${queue.length}); retry after 1 s`,
            { 'Retry-After': '1' },
          ).because('queue_full'),
        );
        return;
      }
      queue.push(waiter);
      this.waiting.set(tenant, queue);
      this.lastSeen.set(tenant, this.now());
      this.dispatch();
      if (this.isWaiting(tenant, waiter)) {
        timer = setTimeout(
          () => {
            if (this.remove(tenant, waiter))
              reject(requestTimeout('the request waited for its turn until its deadline passed'));
          },
          Math.max(0, deadline - Date.now()),
        );
      }
    });
  }

  private isWaiting(tenant: string, waiter: Waiter): boolean {
    return this.waiting.get(tenant)?.includes(waiter) ?? false;
  }

  private remove(tenant: string, waiter: Waiter): boolean {
    const q = this.waiting.get(tenant);
    const i = q ? q.indexOf(waiter) : -1;
    if (!q || i < 0) return false;
    q.splice(i, 1);
    if (q.length === 0) this.waiting.delete(tenant);
    return true;
  }

  /** Tenants searching now: running or waiting, or seen within the active window. */
  private activeTenants(): Set<string> {
    const since = this.now() - (this.o.activeWindowMs ?? 2000);
    for (const [t, at] of this.lastSeen)
      if (at < since && !this.running.has(t) && !this.waiting.has(t)) this.lastSeen.delete(t);
    return new Set([...this.lastSeen.keys(), ...this.running.keys(), ...this.waiting.keys()]);
  }

  /** How many searches `tenant` may run at once now. */
  capOf(tenant: string, active = this.activeTenants()): number {
    const others = active.size - (active.has(tenant) ? 1 : 0);
    return others > 0 ? (this.o.maxInFlightShared ?? 1) : this.o.maxInFlightPerTenant;
  }

  /** Admits waiting searches while there is room, one per tenant in turn. */
  private dispatch(): void {
    while (this.inFlight < this.o.maxInFlight) {
      const active = this.activeTenants();
      const tenant = [...this.waiting.keys()].find((t) => (this.running.get(t) ?? 0) < this.capOf(t, active));
      if (tenant === undefined) return;
      const q = this.waiting.get(tenant)!;
      const waiter = q.shift()!;
      // The tenant goes to the end of the turn order, or leaves it when nothing else waits.
      this.waiting.delete(tenant);
      if (q.length > 0) this.waiting.set(tenant, q);
      this.inFlight += 1;
      this.running.set(tenant, (this.running.get(tenant) ?? 0) + 1);
      waiter.admit();
    }
  }
}

/**
 * The middleware: runs the rest of the chain (the search) only once admitted. The place is given
 * back when the chain ends, or earlier by the handler through `ctx.state.releaseAdmission()` once
 * its read is done (ask then records its turn without holding a place).
 */
export function fairAdmission(queue: FairQueue): Middleware<AuthenticatedState> {
  return async function fairAdmissionMiddleware(ctx, next) {
    const { tenant } = ctx.state.auth;
    const release = await queue.acquire(tenant, ctx.state.deadline ?? Date.now() + 15_000);
    ctx.state.releaseAdmission = release;
    try {
      await next();
    } finally {
      release();
    }
  };
}
