/**
 * How asks that this process's own ask worker runs (worker/ask-worker.ts) end, heard in this
 * process as each run ends: its answer (stored already, the run's completion on its way to the
 * server), or word that it is failing, whose failure the server reports (408, 503, 504). The ask
 * route waits here for a run it started eagerly, whose first task this process's worker holds, and
 * asks the server only when the run failed or nothing was heard for a while (its later tasks went
 * to another worker): an ask that succeeds here costs the server no long poll for its result. If
 * the completion were then lost (this process dying that instant), the server would run the ask
 * again and store the same answer under the same id.
 */
import type { AskWorkflowResult } from '../../workflows/ask';

/** The answer, or undefined when the run is failing and the server is to say how. */
export type AskOutcome = AskWorkflowResult | undefined;

export class AnsweredAsks {
  private readonly waiting = new Map<string, (outcome: AskOutcome) => void>();

  /** How the run `workflowId` ends, when this process's worker runs it; call before starting it. */
  wait(workflowId: string): Promise<AskOutcome> {
    return new Promise((resolve) => this.waiting.set(workflowId, resolve));
  }

  /** Called by the ask worker's sinks as a run ends. */
  deliver(workflowId: string, outcome: AskOutcome): void {
    this.waiting.get(workflowId)?.(outcome);
    this.waiting.delete(workflowId);
  }

  /** The request is over, answered either way. */
  forget(workflowId: string): void {
    this.waiting.delete(workflowId);
  }
}
