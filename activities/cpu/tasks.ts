/**
 * The work the worker's CPU threads run (pool.ts): pure functions over tenant text that can take
 * long on one large input (grading with the built-in judge, redacting what a batch stores). In a
 * thread of their own they never block the worker's event loop, so its heartbeats, its workflow
 * tasks and every other tenant's activities go on; a thread past its budget is terminated.
 * Each export takes one structured-clonable object and returns one.
 */
import { gradeWithBuiltinJudge, type JudgeRule } from '../evaluation/builtin-judge';
import type { Message } from '../evaluation/checks';
import { redact, type Redaction } from '../evaluation/redact';
import type { Grading } from '../evaluation/results';

export function gradeBuiltin(input: { messages: Message[]; output: string; rules: JudgeRule[] }): Grading {
  return gradeWithBuiltinJudge(input);
}

export function redactTexts(input: { texts: string[] }): Redaction[] {
  return input.texts.map((text) => redact(text));
}

export type CpuTasks = {
  gradeBuiltin: typeof gradeBuiltin;
  redactTexts: typeof redactTexts;
};
