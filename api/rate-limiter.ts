/**
 * Fixed-window request counters that hold across API instances. Windows are aligned to the clock
 * (window n covers [n·W, (n+1)·W)), so every instance agrees on them. Each instance counts locally,
 * publishes its counts to a shared store every `syncMs`, and adds the other instances' last
 * published counts: a limit is exceeded by at most what the other instances accepted within one
 * sync interval. The first time an instance meets a subject in a window it reads the store before
 * deciding. When the store cannot be reached the instance goes on with its own counts.
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

export interface RateLimiterOptions {
  windowMs: number;
  /** Where the instances share their counts; without one the limit is per instance. */
  store?: RateCountStore;
  syncMs?: number;
  logger?: Logger;
}

export class SharedWindowCounter {
  readonly instance = randomUUID();
  private window = -1;
  private local = new Map<string, number>();
  private others = new Map<string, number>();
  private dirty = new Set<string>();
  private timer?: NodeJS.Timeout;
  private syncing = false;
  private lastWarning = 0;

  constructor(private readonly o: RateLimiterOptions) {
    if (o.store) {
      this.timer = setInterval(() => void this.sync(), o.syncMs ?? 500);
      this.timer.unref();
    }
  }

  /** Counts one request of `subject` and returns the count including it. */
  async add(subject: string): Promise<WindowCount> {
    await this.meet(subject);
    this.local.set(subject, (this.local.get(subject) ?? 0) + 1);
    if (this.o.store) this.dirty.add(subject);
    return this.count(subject);
  }

  /** The count of `subject` without adding to it. */
  async peek(subject: string): Promise<WindowCount> {
    await this.meet(subject);
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
      this.dirty = new Set();
      void this.o.store?.prune(window - 1).catch((err) => this.warn(err));
    }
    if (this.o.store && !this.local.has(subject) && !this.others.has(subject)) await this.readOthers([subject]);
  }

  private async readOthers(subjects: string[]): Promise<void> {
    const window = this.window;
    try {
      const counts = await this.o.store!.othersCounts({ instance: this.instance, window, subjects });
      if (window !== this.window) return;
      for (const subject of subjects) this.others.set(subject, counts.get(subject) ?? 0);
    } catch (err) {
      this.warn(err);
    }
  }

  /** Publishes the counts that changed, then refreshes the others' counts of every active subject. */
  private async sync(): Promise<void> {
    if (this.syncing) return;
    this.syncing = true;
    try {
      if (this.dirty.size) {
        const counts = new Map([...this.dirty].map((subject) => [subject, this.local.get(subject) ?? 0]));
        this.dirty = new Set();
        await this.o.store!.publish({ instance: this.instance, window: this.window, counts });
      }
      if (this.local.size) await this.readOthers([...this.local.keys()]);
    } catch (err) {
      this.warn(err);
    } finally {
      this.syncing = false;
    }
  }

  /** At most one warning a minute while the store is unreachable. */
  private warn(err: unknown): void {
    if (Date.now() - this.lastWarning < 60_000) return;
    this.lastWarning = Date.now();
    this.o.logger?.warn({ err }, "shared rate-limit counts unavailable; limiting with this instance's counts");
  }
}
