/**
 * Evaluate: one workflow per request, `evaluate:<tenant>:<requestId>` (search attributes TenantId
 * and Operation "evaluate"), grading the output in one activity with its own timeout and bounded
 * retries. The rules arrive resolved (the request's own, or its use case's), so the history shows
 * exactly what was graded against what.
 */
import type { GradeInput } from '../domain/evaluation/grade';
import type { Grading } from '../domain/evaluation/results';
import { grading } from './proxies';

export async function evaluateWorkflow(input: GradeInput & { tenant: string; useCase?: string }): Promise<Grading> {
  return grading.gradeOutput({ messages: input.messages, output: input.output, rules: input.rules });
}
