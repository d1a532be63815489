/**
 * The `evaluate` activity: the model judge when a chat model is configured, else the
 * built-in judge, on one of the worker's CPU threads. Both return the same Grading, ordered
 * critical failures first, within the bounds of evidence.ts (it always fits a Temporal payload).
 * An output the built-in judge cannot grade within a thread's budget, stack or memory fails at
 * once, not retried (InputTooCostly, 400): the same input would fail the same way again.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Rule } from '../contracts/evaluation';
import type { CpuPool } from '../cpu/pool';
import { FAILURE_TYPES } from '../failures';
import { type ChatGateway, forTenant } from '../models/chat';
import { heartbeating, type Progress } from '../progress';
import type { Embedder } from '../models/embeddings';
import { gradeWithModel } from './model-judge';
import { asksOnTopic, topicSimilarity } from './topic';
import type { Grading } from './results';

export interface EvaluateInput {
  messages: { role: string; content: string }[];
  output: string;
  rules: Rule[];
}

export async function evaluate(
  deps: { chat: ChatGateway; cpu: CpuPool; embedder?: Embedder; signal?: AbortSignal; progress?: Progress },
  input: EvaluateInput & {
    /** The tenant the model's tokens are counted for, and whose turn the embedding calls take. */
    tenant?: string;
    /** `local`: the built-in judge, even with a model configured (it stands in for a failed model). */
    engine?: 'local';
    /** Whether a request waits for the grading (evaluate) rather than a batch: its embeddings go first. */
    interactive?: boolean;
    /** The on-topic similarity when the caller measured it already (a batch, by group); null: unavailable. */
    topicSimilarity?: number | null;
  },
): Promise<Grading> {
  const { tenant, engine, interactive, topicSimilarity: measured, ...grade } = input;
  const work =
    deps.chat.complete && engine !== 'local'
      ? gradeWithModel({ chat: tenant ? forTenant(deps.chat, tenant) : deps.chat, ...grade, signal: deps.signal })
      : gradeBuiltin(deps, { ...grade, tenant, interactive: interactive ?? true, measured });
  return heartbeating(work, {
    progress: deps.progress,
    details: { phase: 'grading', rules: input.rules.length, outputChars: input.output.length },
  });
}

/** The built-in judge on a CPU thread, with the output's similarity to the question when a rule asks whether it is on topic. */
async function gradeBuiltin(
  deps: { cpu: CpuPool; embedder?: Embedder; signal?: AbortSignal },
  input: EvaluateInput & { tenant?: string; interactive: boolean; measured?: number | null },
): Promise<Grading> {
  const { tenant, interactive, measured, ...grade } = input;
  const similarity =
    measured !== undefined
      ? (measured ?? undefined)
      : deps.embedder && asksOnTopic(grade.rules)
        ? await topicSimilarity({ embedder: deps.embedder, signal: deps.signal }, { ...grade, tenant, interactive })
        : undefined;
  try {
    return await deps.cpu.run({
      task: 'gradeBuiltin',
      input: { ...grade, topicSimilarity: similarity },
      signal: deps.signal,
    });
  } catch (err) {
    throw deps.signal?.aborted ? err : judgeFailure(err);
  }
}

/**
 * What a failure of the built-in judge's thread becomes: running out of stack, of string or array
 * room (RangeError) or of the thread's memory is the input's doing and would happen again, so it
 * is InputTooCostly, not retried; anything else (the budget's own failure, a pool shutting down)
 * stays as it is.
 */
export function judgeFailure(err: unknown): unknown {
  const e = err as { name?: unknown; code?: unknown };
  if (e?.name !== 'RangeError' && e?.code !== 'ERR_WORKER_OUT_OF_MEMORY') return err;
  return ApplicationFailure.create({
    type: FAILURE_TYPES.tooCostly,
    message: 'grading this output needed more memory than a grading may use and was stopped; send a shorter input',
    nonRetryable: true,
  });
}
