/**
 * The `gradeOutput` activity: the model judge when a chat model is configured, else the
 * built-in judge. Both return the same Grading, ordered critical failures first.
 */
import type { Rule } from '../../api/schemas/evaluation';
import type { ChatGateway } from '../models/chat';
import { gradeWithBuiltinJudge } from './builtin-judge';
import { gradeWithModel } from './model-judge';
import type { Grading } from './results';

export interface GradeInput {
  messages: { role: string; content: string }[];
  output: string;
  rules: Rule[];
}

export async function gradeOutput(deps: { chat: ChatGateway; signal?: AbortSignal }, input: GradeInput): Promise<Grading> {
  if (deps.chat.complete) return gradeWithModel({ chat: deps.chat, ...input, signal: deps.signal });
  return gradeWithBuiltinJudge(input);
}
