/**
 * Waiting for an ask's answer in the process that started it (see index.ts).
 */
import { askStarts } from '../../domain/observability/metrics';
import type { AskWorkflowInput, AskWorkflowResult } from '../../workflows/ask';
import { within } from '../readiness';
import { WorkflowRunner, type StartOptions } from '../workflow-runner';
import type { AnsweredAsks } from './answered-asks';

/**
 * How long the route waits to hear from this process's worker about a run it holds before it asks
 * the server too: with a chat model, a run's later tasks may go to another worker, whose sinks this
 * process does not hear.
 */
const UNHEARD_MS = 2000;

/**
 * Runs an ask and returns its answer. A run started eagerly is in this process's ask worker, which
 * says how it ends (answered-asks.ts): its answer, or that it is failing, and only then (or
 * when nothing was heard within UNHEARD_MS or by the deadline) is the server asked for the result,
 * which is where failures (408, 503, 504) come from. A run the server dispatched answers through
 * the server, or through this process if its worker took it after all.
 */
export async function answeredFirst(o: {
  runner: WorkflowRunner;
  /** This process's asks as they end; without it (no ask worker here) the server reports every result. */
  answered?: AnsweredAsks;
  start: StartOptions<AskWorkflowInput, AskWorkflowResult> & { deadline: number };
}): Promise<AskWorkflowResult> {
  const { runner, answered, start } = o;
  const workflowId = WorkflowRunner.workflowId(start);
  const inProcess = answered?.wait(workflowId);
  try {
    const handle = await runner.start(start);
    askStarts.inc({ start: handle.eagerlyStarted ? 'eager' : 'dispatched' });
    if (!inProcess) return await runner.result(handle, start.deadline, start.operation);
    if (handle.eagerlyStarted) {
      const heard = await within(Math.min(UNHEARD_MS, start.deadline - Date.now()), inProcess).catch(() => undefined);
      if (heard) return heard;
    }
    const fromServer = runner.result(handle, start.deadline, start.operation);
    // When this process answers first, the server's report (or its failure) comes a moment later to nobody.
    fromServer.catch(() => undefined);
    return await Promise.race([fromServer, inProcess.then((outcome) => outcome ?? fromServer)]);
  } finally {
    answered?.forget(workflowId);
  }
}
