/**
 * The `gradeOutput` activity: the model judge when a chat model is configured, else the
 * built-in judge, on one of the worker's CPU threads. Both return the same Grading, ordered
 * critical failures first.
 */
import type { Rule } from '../contracts/evaluation';
import type { CpuPool } from '../cpu/pool';
import { type ChatGateway, forTenant } from '../models/chat';
import { heartbeating, type Progress } from '../progress';
import { gradeWithModel } from './model-judge';
import type { Grading } from './results';

export interface GradeInput {
  messages: { role: string; content: string }[];
  output: string;
  rules: Rule[];
}

export async function gradeOutput(
  deps: { chat: ChatGateway; cpu: CpuPool; signal?: AbortSignal; progress?: Progress },
  input: GradeInput & {
    /** The tenant the model's tokens are counted for. */
    tenant?: string;
    /** `local`: the built-in judge, even with a model configured (it stands in for a failed model). */
    engine?: 'local';
  },
): Promise<Grading> {
  const { tenant, engine, ...grade } = input;
  const work =
    deps.chat.complete && engine !== 'local'
      ? gradeWithModel({ chat: tenant ? forTenant(deps.chat, tenant) : deps.chat, ...grade, signal: deps.signal })
      : deps.cpu.run({ task: 'gradeBuiltin', input: grade, signal: deps.signal });
  return heartbeating(work, {
    progress: deps.progress,
    details: { phase: 'grading', rules: input.rules.length, outputChars: input.output.length },
  });
}
