/**
 * Fixed-window request counters that hold across API instances. Windows are aligned to the clock
 * (window n covers [n·W, (n+1)·W)), so every instance agrees on them. Each instance counts locally,
 * publishes its counts to a shared store every `syncMs` (then reads the others' counts), and adds
 * the other instances' last published counts. The first time an instance meets a subject in a
 * window it reads the store before deciding. When the store cannot be reached the instance goes
 * on with its own counts.
 *
 * The bound across instances: an instance counts at most `maxUnsynced` requests of a subject
 * between two of its syncs; the next one waits for a sync (a publish and a read, coalesced with any
 * in flight). So N instances together accept at most the limit plus (N − 1) × maxUnsynced requests
 * of a key in a window, however fast a burst arrives: take the instance whose last read before its
 * last acceptance came latest; every other instance had published all but at most maxUnsynced of
 * what it accepted before that read (docs/api.md, "Rate limits"). Without `maxUnsynced` a burst
 * could pass by what the others accepted within one sync interval.
 */
import { randomUUID } from 'node:crypto';
import type { RateCountStore } from '../domain/weaviate/rate-counts';
import type { Logger } from './logger';

export interface WindowCount {
  /** Requests counted for the subject in the current window, on every instance. */
  total: number;
  /** Seconds until the current window ends, at least 1. */
  retryAfterSeconds: number;
}

/** How often an instance publishes its counts and reads the others' unless told (RATE_LIMIT_SYNC_MS). */
export const DEFAULT_SYNC_MS = 2000;

export interface RateLimiterOptions {
  windowMs: number;
  /** Where the instances share their counts; without one the limit is per instance. */
  store?: RateCountStore;
  syncMs?: number;
  /** Requests of one subject an instance counts between two syncs before it syncs first; unbounded when not given. */
  maxUnsynced?: number;
  logger?: Logger;
}

export class SharedWindowCounter {
  readonly instance = randomUUID();
  private window = -1;
  private local = new Map<string, number>();
  private others = new Map<string, number>();
  /** Requests counted per subject since the last publish took its snapshot (its keys: the counts to publish), */
  private unsynced = new Map<string, number>();
  /** and since the others' counts were last read (those of them not published yet). */
  private sinceRead = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private syncing?: Promise<boolean>;
  /** The first read of a subject's counts in this window, per subject, while it runs. */
  private firstReads = new Map<string, Promise<boolean>>();
  private lastWarning = 0;

  constructor(private readonly o: RateLimiterOptions) {
    if (o.store) {
      this.timer = setInterval(() => void this.sync(), o.syncMs ?? DEFAULT_SYNC_MS);
      this.timer.unref();
    }
  }

  /** Counts one request of `subject` and returns the count including it. */
  async add(subject: string): Promise<WindowCount> {
    await this.meet(subject);
    const bound = this.o.maxUnsynced;
    // A failed sync ends the wait: without the store, the instance limits with its own counts.
    while (this.o.store && bound && (this.sinceRead.get(subject) ?? 0) >= bound && (await this.sync()));
    this.local.set(subject, (this.local.get(subject) ?? 0) + 1);
    if (this.o.store) {
      this.unsynced.set(subject, (this.unsynced.get(subject) ?? 0) + 1);
      this.sinceRead.set(subject, (this.sinceRead.get(subject) ?? 0) + 1);
    }
    return this.count(subject);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private count(subject: string): WindowCount {
    const end = (this.window + 1) * this.o.windowMs;
    return {
      total: (this.local.get(subject) ?? 0) + (this.others.get(subject) ?? 0),
      retryAfterSeconds: Math.max(1, Math.ceil((end - Date.now()) / 1000)),
    };
  }

  /** Starts a new window when the clock has moved on, and reads a subject seen first. */
  private async meet(subject: string): Promise<void> {
    const window = Math.floor(Date.now() / this.o.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.local = new Map();
      this.others = new Map();
      this.unsynced = new Map();
      this.sinceRead = new Map();
      void this.o.store?.prune(window - 1).catch((err) => this.warn(err));
    }
    if (this.o.store && !this.local.has(subject) && !this.others.has(subject)) {
      // Requests arriving together share one read.
      let first = this.firstReads.get(subject);
      if (!first) {
        first = this.readOthers([subject]).finally(() => this.firstReads.delete(subject));
        this.firstReads.set(subject, first);
      }
      await first;
    }
  }

  private async readOthers(subjects: string[]): Promise<boolean> {
    const window = this.window;
    try {
      const counts = await this.o.store!.othersCounts({ instance: this.instance, window, subjects });
      if (window !== this.window) return true;
      // Counts only grow within a window: a read that overtook a later one must not set them back.
      for (const subject of subjects)
        this.others.set(subject, Math.max(this.others.get(subject) ?? 0, counts.get(subject) ?? 0));
      return true;
    } catch (err) {
      this.warn(err);
      return false;
    }
  }

  /** Publishes the counts that changed, then refreshes the others' counts of every active subject; one at a time, callers share it. True when both succeeded. */
  private sync(): Promise<boolean> {
    return (this.syncing ??= this.syncOnce().finally(() => (this.syncing = undefined)));
  }

  private async syncOnce(): Promise<boolean> {
    try {
      if (this.unsynced.size) {
        const counts = new Map([...this.unsynced.keys()].map((subject) => [subject, this.local.get(subject) ?? 0]));
        this.unsynced = new Map();
        await this.o.store!.publish({ instance: this.instance, window: this.window, counts });
      }
      const subjects = [...this.local.keys()];
      if (!(await this.readOthers(subjects))) return false;
      // What was counted while this sync ran is not published yet: it stays on the new view's account.
      for (const subject of subjects) this.sinceRead.set(subject, this.unsynced.get(subject) ?? 0);
      return true;
    } catch (err) {
      this.warn(err);
      return false;
    }
  }

  /** At most one warning a minute while the store is unreachable. */
  private warn(err: unknown): void {
    if (Date.now() - this.lastWarning < 60_000) return;
    this.lastWarning = Date.now();
    this.o.logger?.warn({ err }, "shared rate-limit counts unavailable; limiting with this instance's counts");
  }
}
