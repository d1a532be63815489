/**
 * Counts the chat model's tokens per UTC day, tenant, capability and model, in each process that
 * calls the model (the API, the workers), and shares the counts through Weaviate
 * (domain/weaviate/token-usage.ts): every `syncMs` the process stores its running totals and reads
 * the other processes' totals of the day, so `spentToday` holds across processes, behind by at
 * most one sync interval of the others' calls. A process that dies loses at most its last
 * interval's counts. When the store cannot be reached the meter goes on counting and stores its
 * totals once it can.
 */
import { randomUUID } from 'node:crypto';
import type { WeaviateClient } from 'weaviate-client';
import type { ChatSettings } from '../config';
import { type ChatGateway, type ChatUsage, createChatGateway } from './chat';
import { type TokenUsageRow, utcDay, WeaviateTokenUsage } from '../weaviate/token-usage';

export interface TokenMeterOptions {
  store?: Pick<WeaviateTokenUsage, 'publish' | 'rows'>;
  syncMs?: number;
  /** Where a failing store is reported, at most once a minute. */
  warn?: (message: string, err: unknown) => void;
  now?: () => number;
}

/** The tenant of a call made for no tenant (none today; kept apart rather than lost). */
const NO_TENANT = '-';

export class TokenMeter {
  readonly instance = randomUUID();
  /** This process's running totals, by key. */
  private readonly totals = new Map<string, TokenUsageRow>();
  private readonly dirty = new Set<string>();
  /** The other processes' tokens per tenant, of `othersDay`. */
  private others = new Map<string, number>();
  private othersDay = -1;
  private timer?: NodeJS.Timeout;
  private syncing?: Promise<void>;
  private lastWarning = 0;
  private readonly now: () => number;

  constructor(private readonly o: TokenMeterOptions = {}) {
    this.now = o.now ?? Date.now;
  }

  /** Starts sharing the counts every `syncMs` (and reads the others' at once). */
  start(): this {
    if (this.o.store && !this.timer) {
      this.timer = setInterval(() => void this.sync(), this.o.syncMs ?? 1000);
      this.timer.unref();
      void this.sync();
    }
    return this;
  }

  /** Stops the timer and stores what is not stored yet. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sync();
  }

  /** Counts one call's tokens. */
  record(u: ChatUsage): void {
    const row = {
      day: utcDay(this.now()),
      tenant: u.tenant ?? NO_TENANT,
      capability: u.capability,
      model: u.model,
    };
    const key = JSON.stringify([row.day, row.tenant, row.capability, row.model]);
    const total = this.totals.get(key) ?? { ...row, promptTokens: 0, completionTokens: 0, calls: 0 };
    total.promptTokens += u.promptTokens;
    total.completionTokens += u.completionTokens;
    total.calls += 1;
    this.totals.set(key, total);
    this.dirty.add(key);
  }

  /** The tokens (prompt and completion) `tenant` spent today, in every process. */
  spentToday(tenant: string): number {
    const day = utcDay(this.now());
    let spent = this.othersDay === day ? (this.others.get(tenant) ?? 0) : 0;
    for (const t of this.totals.values())
      if (t.day === day && t.tenant === tenant) spent += t.promptTokens + t.completionTokens;
    return spent;
  }

  /** This process's running totals (of the days it still keeps). */
  rows(): TokenUsageRow[] {
    return [...this.totals.values()].map((r) => ({ ...r }));
  }

  /** Stores the changed totals and reads the others' of today; one sync at a time. */
  sync(): Promise<void> {
    this.syncing ??= this.syncOnce().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    const store = this.o.store;
    if (!store) return;
    const day = utcDay(this.now());
    const keys = [...this.dirty];
    this.dirty.clear();
    try {
      await store.publish({ instance: this.instance, rows: keys.map((k) => this.totals.get(k)!) });
    } catch (err) {
      for (const k of keys) this.dirty.add(k);
      return this.warn('storing the token counts failed; retrying', err);
    }
    // Days before yesterday are stored and done with: forget them.
    for (const [k, t] of this.totals) if (t.day < day - 1 && !this.dirty.has(k)) this.totals.delete(k);
    try {
      const others = new Map<string, number>();
      for (const r of await store.rows({ day, exceptInstance: this.instance }))
        others.set(r.tenant, (others.get(r.tenant) ?? 0) + r.promptTokens + r.completionTokens);
      this.others = others;
      this.othersDay = day;
    } catch (err) {
      this.warn("reading the other processes' token counts failed; the budget counts this process's alone", err);
    }
  }

  private warn(message: string, err: unknown): void {
    if (this.now() - this.lastWarning < 60_000) return;
    this.lastWarning = this.now();
    this.o.warn?.(message, err);
  }
}

/** A process's log, whichever logger it has (the API's pino, a worker's Temporal runtime logger). */
export type ChatLog = (level: 'info' | 'warn', message: string, meta: Record<string, unknown>) => void;

/**
 * The chat gateway of a process, each call's tokens logged and counted by the process's token
 * meter, which shares them through Weaviate every `syncMs` (started here; stop it on shutdown).
 */
export function meteredChatGateway(o: {
  config: ChatSettings | undefined;
  weaviate: () => Promise<WeaviateClient>;
  syncMs: number;
  log: ChatLog;
}): { chat: ChatGateway; meter: TokenMeter } {
  const meter = new TokenMeter({
    store: new WeaviateTokenUsage(o.weaviate),
    syncMs: o.syncMs,
    warn: (message, err) => o.log('warn', message, { err: err instanceof Error ? err.message : String(err) }),
  });
  const chat = createChatGateway(o.config, {
    usage: (u) => {
      meter.record(u);
      o.log('info', 'chat model call', { ...u });
    },
    warn: (message) => o.log('warn', message, {}),
  });
  if (chat.engine === 'openai') meter.start();
  return { chat, meter };
}
