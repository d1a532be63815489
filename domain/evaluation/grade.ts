/**
 * The `gradeOutput` activity: the model judge when a chat model is configured, else the
 * built-in judge, on one of the worker's CPU threads. Both return the same Grading, ordered
 * critical failures first.
 */
import type { Rule } from '../contracts/evaluation';
import type { CpuPool } from '../cpu/pool';
import type { ChatGateway } from '../models/chat';
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
  input: GradeInput,
): Promise<Grading> {
  const work = deps.chat.complete
    ? gradeWithModel({ chat: deps.chat, ...input, signal: deps.signal })
    : deps.cpu.run({ task: 'gradeBuiltin', input, signal: deps.signal });
  return heartbeating(work, {
    progress: deps.progress,
    details: { phase: 'grading', rules: input.rules.length, outputChars: input.output.length },
  });
}
