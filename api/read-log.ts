/**
 * Counts the reads this API instance answers, per tenant and operation, and sends them every
 * `flushMs` to the tenant's read-log workflow (workflows/read-log.ts) with one signal-with-start,
 * so operators still see each tenant's searches in the Temporal Web UI without a workflow per
 * search. Sending is off the request path: a failure to send is logged and the batch dropped;
 * it never delays or fails a read.
 */
import type { Client } from '@temporalio/client';
import { OPERATIONS } from '../workflows/constants';
import { readLogWorkflow, readsSignal, type ReadBatch, type ReadStats } from '../workflows/read-log';
import type { Logger } from './logger';
import { OperationAttr, TenantId } from './workflow-runner';

export interface ReadRecord {
  tenant: string;
  operation: string;
  ms: number;
  status: number;
  /** The chat model's tokens the read spent (summary, sentiment, tag with a model). */
  tokens?: { promptTokens: number; completionTokens: number };
}

/** Latencies kept per tenant and operation between two flushes, for the percentiles. */
const MAX_SAMPLES = 2000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

class Tally {
  count = 0;
  failed = 0;
  timedOut = 0;
  maxMs = 0;
  promptTokens = 0;
  completionTokens = 0;
  readonly samples: number[] = [];

  add(r: ReadRecord): void {
    this.count += 1;
    this.promptTokens += r.tokens?.promptTokens ?? 0;
    this.completionTokens += r.tokens?.completionTokens ?? 0;
    if (r.status === 408) this.timedOut += 1;
    else if (r.status >= 500) this.failed += 1;
    this.maxMs = Math.max(this.maxMs, r.ms);
    if (this.samples.length < MAX_SAMPLES) this.samples.push(r.ms);
  }

  stats(): ReadStats {
    const sorted = [...this.samples].sort((a, b) => a - b);
    return {
      count: this.count,
      failed: this.failed,
      timedOut: this.timedOut,
      p50Ms: percentile(sorted, 0.5),
      p95Ms: percentile(sorted, 0.95),
      maxMs: this.maxMs,
      ...(this.promptTokens + this.completionTokens > 0
        ? { promptTokens: this.promptTokens, completionTokens: this.completionTokens }
        : {}),
    };
  }
}

export class ReadLog {
  private tallies = new Map<string, Map<string, Tally>>();
  private from = new Date();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: { client: Client; taskQueue: string; flushMs: number; logger?: Logger }) {
    this.timer = setInterval(() => void this.flush(), o.flushMs);
    this.timer.unref();
  }

  record(r: ReadRecord): void {
    let byOperation = this.tallies.get(r.tenant);
    if (!byOperation) this.tallies.set(r.tenant, (byOperation = new Map()));
    let tally = byOperation.get(r.operation);
    if (!tally) byOperation.set(r.operation, (tally = new Tally()));
    tally.add(r);
  }

  /** Sends what was counted since the last flush, one signal per tenant. */
  async flush(): Promise<void> {
    const tallies = this.tallies;
    const batchBase = { from: this.from.toISOString(), to: new Date().toISOString() };
    this.tallies = new Map();
    this.from = new Date();
    await Promise.all(
      [...tallies].map(async ([tenant, byOperation]) => {
        const batch: ReadBatch = {
          ...batchBase,
          operations: Object.fromEntries([...byOperation].map(([op, t]) => [op, t.stats()])),
        };
        try {
          await this.o.client.workflow.signalWithStart(readLogWorkflow, {
            workflowId: `${OPERATIONS.reads}:${tenant}`,
            taskQueue: this.o.taskQueue,
            args: [{ tenant }],
            signal: readsSignal,
            signalArgs: [batch],
            typedSearchAttributes: [
              { key: TenantId, value: tenant },
              { key: OperationAttr, value: OPERATIONS.reads },
            ],
          });
        } catch (err) {
          this.o.logger?.warn({ err, tenant }, 'could not send the read log; batch dropped');
        }
      }),
    );
  }

  /** Stops the timer and sends what is left. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
