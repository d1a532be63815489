/**
 * The input the current activity's workflow run was started with, read back from Temporal (the
 * run's first event): a later slice of an upload (workflows/ingestion.ts) reads its batch there
 * instead of the workflow copying the batch into its history again for every slice.
 */
import { Context } from '@temporalio/activity';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';

export interface RunInput<T> {
  /** Names the workflow run: the same for every activity of the run, on any worker. */
  runKey: string;
  /** Fetches the run's input (one history event) and picks from it. */
  read: () => Promise<T>;
}

/**
 * The current run's input, or undefined for an activity started outside a workflow. `Input` is the type of the
 * workflow's first argument, which the caller names: what the history holds is decoded, not checked.
 */
export function runInput<Input, T>(pick: (input: Input) => T): RunInput<T> | undefined {
  const context = Context.current();
  const { workflowExecution, workflowNamespace } = context.info;
  if (!workflowExecution || !workflowNamespace) return undefined;
  return {
    runKey: `${workflowNamespace}/${workflowExecution.workflowId}/${workflowExecution.runId}`,
    async read() {
      const client = context.client;
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: workflowNamespace,
        execution: workflowExecution,
        maximumPageSize: 1,
      });
      const payloads = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
      if (!payloads?.length) throw new Error(`workflow ${workflowExecution.workflowId} has no input to read`);
      return pick(await decodeFromPayloadsAtIndex<Input>(client.options.loadedDataConverter, 0, payloads));
    },
  };
}
