/**
 * The ask runtime of every API process, in one place. An ask is a workflow (workflows/ask.ts) that
 * the API starts eagerly, so it runs here, not in a worker process:
 *
 * - `startAskWorker` (worker/ask-worker.ts): the Temporal worker on the task queue
 *   `<TASK_QUEUE>-ask` that each API process runs over its own connection, with the API's clients.
 *   Its file is in worker/ because it registers the ask's activities, which api/ may not import;
 *   api/server.ts, the composition root, is the one API file that starts it.
 * - `AnsweredAsks` (answered-asks.ts): how the asks that worker runs end, heard through the
 *   workflow's sinks, for the requests waiting on them.
 * - `answeredFirst` (answered-first.ts): what the ask route awaits: the answer heard here, or the
 *   server's report of the run's result when the run is failing or ran elsewhere.
 *
 * docs/architecture.md shows what else runs in the API process; docs/api.md ("Ask") the protocol.
 */
export { AnsweredAsks } from './answered-asks';
export { answeredFirst } from './answered-first';
