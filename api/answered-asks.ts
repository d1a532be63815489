/**
 * Answers of asks, handed over in this process by its own ask worker (worker/ask-worker.ts) as
 * each run ends: its answer is stored, and the run's completion is on its way to the server. The
 * ask route waits for whichever comes first, this or the run's result from the server, so a run
 * that this process ran answers without the round trip of the server recording its completion and
 * reporting it back; a run another worker took answers through the server as before. If the
 * completion were then lost (this process dying that instant), the server would run the ask again
 * and store the same answer under the same id.
 */
import type { AskWorkflowResult } from '../workflows/ask';

export class AnsweredAsks {
  private readonly waiting = new Map<string, (result: AskWorkflowResult) => void>();

  /** The answer of the run `workflowId`, when this process's worker runs it; call before starting it. */
  wait(workflowId: string): Promise<AskWorkflowResult> {
    return new Promise((resolve) => this.waiting.set(workflowId, resolve));
  }

  /** Called by the ask worker's sink as a run ends. */
  deliver(workflowId: string, result: AskWorkflowResult): void {
    this.waiting.get(workflowId)?.(result);
    this.waiting.delete(workflowId);
  }

  /** The request is over, answered either way. */
  forget(workflowId: string): void {
    this.waiting.delete(workflowId);
  }
}
