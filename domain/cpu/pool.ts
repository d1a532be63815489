/**
 * The worker's CPU threads (piscina): the work of tasks.ts runs there, never on the worker's event
 * loop. Each task gets a budget that starts when a thread takes it up (waiting for a free thread
 * does not count); past it, or when the activity is cancelled (the workflow was terminated, the
 * attempt timed out), the thread running it is terminated, which really stops the work, and a new
 * thread takes its place. A task past its budget fails with `InputTooCostly`, not retried.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Piscina } from 'piscina';
import { FAILURE_TYPES } from '../failures';
import type { CpuTasks } from './tasks';

export type CpuTaskName = keyof CpuTasks;

export interface CpuPool {
  /** Runs `task` on a thread; the buffers in `transfer` (parts of `input`) are moved there, not copied, and unusable here after. */
  run<N extends CpuTaskName>(o: {
    task: N;
    input: Parameters<CpuTasks[N]>[0];
    signal?: AbortSignal;
    transfer?: ArrayBuffer[];
  }): Promise<Awaited<ReturnType<CpuTasks[N]>>>;
  close(): Promise<void>;
}

export interface CpuPoolOptions {
  /** Threads, so tasks run at once. */
  threads: number;
  /** Time one task may run on its thread. */
  budgetMs: number;
}

/**
 * The threads' Node flags: under ts-node, what loads the TypeScript sources; nothing else, since
 * threads refuse some of the process's own flags (`--trace-gc`, say) and need none of them.
 */
const threadExecArgv = () =>
  __filename.endsWith('.ts') ? ['--require', require.resolve('ts-node/register/transpile-only')] : [];

export function createCpuPool(o: CpuPoolOptions): CpuPool {
  const pool = new Piscina({
    filename: require.resolve('./tasks'),
    // Loaded when a thread starts; every run names its task.
    name: 'gradeBuiltin' satisfies CpuTaskName,
    minThreads: 0,
    maxThreads: o.threads,
    idleTimeout: 60_000,
    execArgv: threadExecArgv(),
  });
  // Tasks wait here, in order, for a thread, so the budget counts only the time on a thread.
  const waiting: (() => void)[] = [];
  let running = 0;
  const acquire = () =>
    running < o.threads ? Promise.resolve(void (running += 1)) : new Promise<void>((resolve) => waiting.push(resolve));
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };

  return {
    async run({ task, input, signal, transfer }) {
      signal?.throwIfAborted();
      await acquire();
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
};

function overBudget(task: CpuTaskName, budgetMs: number): ApplicationFailure {
  const { what, then } = OVER_BUDGET[task];
  return ApplicationFailure.create({
    type: FAILURE_TYPES.tooCostly,
    message: `${what} took longer than its budget of ${budgetMs / 1000} s and was stopped; ${then}`,
    nonRetryable: true,
  });
}
