/**
 * Evaluate: one workflow per request, `evaluate:<tenant>:<requestId>` (search attributes TenantId
 * and Operation "evaluate"), grading the output in one activity with its own timeout and bounded
 * retries. The rules arrive resolved (the request's own, or its use case's), so the history shows
 * exactly what was graded against what.
 *
 * With a chat model and `fallback: 'local'` (CHAT_FALLBACK), the model judge's attempts end
 * FALLBACK_RESERVE_MS before the request's deadline, and when they fail for good the built-in
 * judge grades instead: the result's `judge` names it and `fallback` says why, beside the failed
 * activity in the history.
 */
import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { EvaluateInput } from '../domain/evaluation/evaluate';
import type { Grading } from '../domain/evaluation/results';
import { FALLBACK_RESERVE_MS } from './constants';
import { grading, gradingUntil } from './proxies';

export interface EvaluateWorkflowInput extends EvaluateInput {
  tenant: string;
  useCase?: string;
  /** The engine the API was configured with. */
  engine?: 'local' | 'openai';
  /** What grades when the model fails for good: the built-in judge, or nobody (the request fails: 503/504). */
  fallback?: 'local' | 'none';
  /** The request's deadline, epoch ms. */
  deadline?: number;
}

export type EvaluateWorkflowResult = Grading & { fallback?: { reason: string } };

/** Characters of the fallback's reason kept in the result: the grading's bounds (domain/evaluation/evidence.ts) count on it. */
export const FALLBACK_REASON_CHARS = 160;

export async function evaluateWorkflow(input: EvaluateWorkflowInput): Promise<EvaluateWorkflowResult> {
  const grade = { messages: input.messages, output: input.output, rules: input.rules, tenant: input.tenant };
  if (input.engine !== 'openai' || input.fallback !== 'local' || input.deadline === undefined)
    return grading.evaluate(grade);
  try {
    return await gradingUntil(input.deadline - FALLBACK_RESERVE_MS).evaluate(grade);
  } catch (err) {
    if (!(err instanceof ActivityFailure) || isCancellation(err)) throw err;
    const graded = await grading.evaluate({ ...grade, engine: 'local' });
    const reason = err.cause?.message ?? err.message;
    return { ...graded, fallback: { reason: reason.slice(0, FALLBACK_REASON_CHARS) } };
  }
}
