/**
 * CPU threads (piscina): the worker's (the work of tasks.ts) and the API's (read-tasks.ts: the
 * reads' work on tenant text), so that it never runs on the process's event loop. Each task gets a budget that starts when a thread takes it up (waiting for a free thread
 * does not count); past it, or when the activity is cancelled (the workflow was terminated, the
 * attempt timed out), the thread running it is terminated, which really stops the work, and a new
 * thread takes its place. A task past its budget fails with `InputTooCostly`, not retried.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Piscina } from 'piscina';
import { FAILURE_TYPES } from '../failures';
import { watchAdmissionQueue } from '../observability/metrics';
import type { ReadTasks } from './read-tasks';
import type { CpuTasks as WorkerTasks } from './tasks';

/** Every task: the worker's (tasks.ts) and the API's reads (read-tasks.ts); a pool runs those of its `tasks`. */
export type CpuTasks = WorkerTasks & ReadTasks;
export type CpuTaskName = keyof CpuTasks;

export interface CpuPool {
  /** Runs `task` on a thread; the buffers in `transfer` (parts of `input`) are moved there, not copied, and unusable here after. */
  run<N extends CpuTaskName>(o: {
    task: N;
    input: Parameters<CpuTasks[N]>[0];
    signal?: AbortSignal;
    transfer?: ArrayBuffer[];
    /** The tenant the task works for: waiting tasks take turns by tenant. Without it they wait in one line, in order. */
    tenant?: string;
  }): Promise<Awaited<ReturnType<CpuTasks[N]>>>;
  close(): Promise<void>;
}

export interface CpuPoolOptions {
  /** Threads, so tasks run at once. */
  threads: number;
  /** Time one task may run on its thread. */
  budgetMs: number;
  /** Which tasks the threads load: the worker's (tasks.ts, the default) or the API's reads (read-tasks.ts). */
  tasks?: 'worker' | 'read';
  /** Keeps every thread started, so that no request waits for one to load (the API). Else a thread stops after a minute idle. */
  warm?: boolean;
  /** Tasks one tenant may have waiting for a thread; one more is refused with CpuQueueFull. Default: no bound. */
  maxQueuedPerTenant?: number;
}

/** A tenant already has `maxQueuedPerTenant` tasks waiting for a thread. */
export class CpuQueueFull extends Error {
  constructor(readonly waiting: number) {
    super(`this tenant already has ${waiting} tasks waiting for a CPU thread`);
    this.name = 'CpuQueueFull';
  }
}

/**
 * The threads' Node flags: under ts-node, what loads the TypeScript sources; nothing else, since
 * threads refuse some of the process's own flags (`--trace-gc`, say) and need none of them.
 */
const threadExecArgv = () =>
  __filename.endsWith('.ts') ? ['--require', require.resolve('ts-node/register/transpile-only')] : [];

export function createCpuPool(o: CpuPoolOptions): CpuPool {
  const read = o.tasks === 'read';
  const pool = new Piscina({
    filename: require.resolve(read ? './read-tasks' : './tasks'),
    // Loaded when a thread starts; every run names its task.
    name: read ? ('messageLanguage' satisfies CpuTaskName) : ('gradeBuiltin' satisfies CpuTaskName),
    minThreads: o.warm ? o.threads : 0,
    maxThreads: o.threads,
    idleTimeout: o.warm ? Infinity : 60_000,
    execArgv: threadExecArgv(),
  });
  // Tasks wait here for a thread, so the budget counts only the time on a thread: one line per
  // tenant, in order; a freed thread goes to the waiting tenant whose last task started longest ago.
  const waiting = new Map<string, (() => void)[]>();
  const lastStart = new Map<string, number>();
  let starts = 0;
  const started = (tenant: string) => {
    if (lastStart.size > 10_000) lastStart.clear();
    lastStart.set(tenant, ++starts);
  };
  let running = 0;
  watchAdmissionQueue('cpu', () => {
    let n = 0;
    for (const line of waiting.values()) n += line.length;
    return n;
  });
  const acquire = (tenant: string, signal?: AbortSignal) => {
    if (running < o.threads) {
      started(tenant);
      return Promise.resolve(void (running += 1));
    }
    const line = waiting.get(tenant) ?? [];
    if (o.maxQueuedPerTenant !== undefined && line.length >= o.maxQueuedPerTenant)
      return Promise.reject(new CpuQueueFull(line.length));
    return new Promise<void>((resolve, reject) => {
      const leave = () => {
        line.splice(line.indexOf(go), 1);
        if (line.length === 0 && waiting.get(tenant) === line) waiting.delete(tenant);
        reject(signal!.reason);
      };
      const go = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      line.push(go);
      if (!waiting.has(tenant)) waiting.set(tenant, line);
      signal?.addEventListener('abort', leave, { once: true });
    });
  };
  const release = () => {
    let tenant: string | undefined;
    for (const t of waiting.keys())
      if (tenant === undefined || (lastStart.get(t) ?? 0) < (lastStart.get(tenant) ?? 0)) tenant = t;
    if (tenant === undefined) return void (running -= 1);
    const line = waiting.get(tenant)!;
    const next = line.shift()!;
    if (line.length === 0) waiting.delete(tenant);
    started(tenant);
    next();
  };

  return {
    async run({ task, input, signal, transfer, tenant }) {
      signal?.throwIfAborted();
      await acquire(tenant ?? '', signal);
      try {
        signal?.throwIfAborted();
        const budget = AbortSignal.timeout(o.budgetMs);
        try {
          return await pool.run(input, {
            name: task,
            signal: signal ? AbortSignal.any([signal, budget]) : budget,
            transferList: transfer,
          });
        } catch (err) {
          if (budget.aborted && !signal?.aborted) throw overBudget(task, o.budgetMs);
          throw err;
        }
      } finally {
        release();
      }
    },
    close: () => pool.destroy(),
  };
}

/** What each task does, and what to do when it runs past its budget, in words a client or an operator reads. */
const OVER_BUDGET: Record<CpuTaskName, { what: string; then: string }> = {
  gradeBuiltin: { what: 'grading this output', then: 'send a shorter input' },
  redactTexts: { what: 'redacting this record', then: 'send a shorter input' },
  trainTags: { what: "training the tenant's tag model", then: 'raise WORKER_TAG_TRAINING_BUDGET_MS' },
  prepareArticle: { what: 'converting this article to passages', then: 'send a shorter or simpler body' },
  conversationLanguage: { what: "telling this conversation's language", then: 'send X-Language-Iso-Code' },
  summarizeLocally: { what: 'summarizing this conversation', then: 'send a shorter conversation' },
  summaryPrompt: { what: 'preparing this conversation for the model', then: 'send a shorter conversation' },
  messageLanguage: { what: "telling this message's language", then: 'send X-Language-Iso-Code' },
  readSentiment: { what: 'reading this message', then: 'send a shorter message' },
  sentimentPrompt: { what: 'preparing this message for the model', then: 'send a shorter message' },
  keywordTags: { what: "finding this message's keywords", then: 'send a shorter message' },
  tagPrompt: { what: 'preparing this message for the model', then: 'send a shorter message' },
  readUploadBody: { what: 'reading this upload', then: 'send it in smaller requests' },
  readRequestBody: { what: 'reading this request', then: 'send a shorter body' },
};

function overBudget(task: CpuTaskName, budgetMs: number): ApplicationFailure {
  const { what, then } = OVER_BUDGET[task];
  return ApplicationFailure.create({
    type: FAILURE_TYPES.tooCostly,
    message: `${what} took longer than its budget of ${budgetMs / 1000} s and was stopped; ${then}`,
    nonRetryable: true,
  });
}
