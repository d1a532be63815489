/**
 * `npm run tags -- train --tenant <t> [--detach]`: trains a tenant's tag model now and prints what
 * the training used; `npm run tags -- status --tenant <t> [--wait <s>]`: the trainer's state and
 * last training, or, when its worker does not answer within the wait (10 s), that it did not (exit 1).
 * Both talk to the Temporal of a running stack (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE).
 */
import { Client, Connection, WorkflowNotFoundError, isGrpcDeadlineError } from '@temporalio/client';
import { Command, InvalidArgumentError } from 'commander';
import { loadServicesConfig } from '../domain/config';
import { terminalText as t } from '../domain/text/terminal-text';
import { TENANT_PATTERN } from '../domain/weaviate/collections';
import { requestTagTraining, tagTrainerStatus, waitForTagTraining } from './tag-trainer';
import type { TagTrainerStatus } from '../workflows/tag-training';

function parseTenant(value: string): string {
  if (!TENANT_PATTERN.test(value)) throw new InvalidArgumentError('tenant must match [A-Za-z0-9_-]{1,64}');
  return value;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 600)) throw new InvalidArgumentError('expected a number of seconds, more than 0 and at most 600');
  return n;
}

async function withTemporal<T>(fn: (client: Client, taskQueue: string, address: string) => Promise<T>): Promise<T> {
  const config = loadServicesConfig(process.env);
  const connection = await Connection.connect({ address: config.temporal.address, connectTimeout: 5000 }).catch(
    (err) => {
      throw new Error(
        `cannot reach Temporal at ${config.temporal.address}: ${err.message}. Is the stack running (npm start)? Otherwise set TEMPORAL_ADDRESS.`,
      );
    },
  );
  try {
    return await fn(
      new Client({ connection, namespace: config.temporal.namespace }),
      config.temporal.taskQueue,
      config.temporal.address,
    );
  } finally {
    await connection.close();
  }
}

function describeLast(last: TagTrainerStatus['last']): string {
  if (!last) return 'no training yet';
  const when = `${new Date(last.startedAt).toISOString()} (${((last.endedAt - last.startedAt) / 1000).toFixed(1)} s)`;
  if (last.error) return `training of ${when} failed: ${t(last.error)}`;
  const r = last.run!;
  if (r.version === null)
    return `training of ${when}: too little to train on (${r.taggedCases} tagged cases, at least two tags need 3 cases each); /v1/tag answers keyword tags`;
  const holdout = r.holdoutAccuracy === null ? '' : `, held-out accuracy ${(r.holdoutAccuracy * 100).toFixed(1)}%`;
  return `training of ${when}: ${r.cases} cases, ${r.tags} tags (${r.rareTags} too rare, ${r.spamCases} spam cases left out)${holdout}`;
}

const program = new Command('tags').description("Train and inspect tenants' tag models");

program
  .command('train')
  .description("Train a tenant's tag model now, from its tagged cases")
  .requiredOption('--tenant <tenant>', 'the tenant', parseTenant)
  .option('--detach', 'return once the training is requested; print the workflow id')
  .action((o) =>
    withTemporal(async (client, taskQueue) => {
      const { workflowId, requestedAt } = await requestTagTraining({ client, taskQueue, tenant: o.tenant });
      console.log(
        `training requested: workflow ${workflowId} (Temporal Web UI: filter Operation="tags-train" and TenantId="${o.tenant}")`,
      );
      if (o.detach) return;
      let state = '';
      const last = await waitForTagTraining({
        client,
        tenant: o.tenant,
        since: requestedAt,
        timeoutMs: 30 * 60_000,
        onStatus: (s) => {
          if (s.state !== state) console.log(`  ${t((state = s.state))}`);
        },
      });
      console.log(describeLast(last));
      if (last.error) process.exitCode = 1;
    }),
  );

/**
 * The trainer's answer to its status query, or undefined when the tenant has no trainer. The query
 * is answered by a worker: a worker that is busy (or stopped) does not answer, and that is said as
 * such, never as absence.
 */
async function askTrainer(o: {
  client: Client;
  tenant: string;
  waitSeconds: number;
}): Promise<TagTrainerStatus | undefined> {
  try {
    return await o.client.connection.withDeadline(Date.now() + o.waitSeconds * 1000, () => tagTrainerStatus(o));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    const why = isGrpcDeadlineError(err) ? `within ${o.waitSeconds} s` : `(${(err as Error).message})`;
    throw new Error(
      `the tag trainer of tenant ${o.tenant} did not answer ${why}: the worker may be busy or not running, so its state is unknown; try again`,
    );
  }
}

program
  .command('status')
  .description("A tenant's tag trainer: its state and its last training")
  .requiredOption('--tenant <tenant>', 'the tenant', parseTenant)
  .option('--wait <seconds>', 'how long to wait for the trainer to answer', parseSeconds, 10)
  .action((o: { tenant: string; wait: number }) =>
    withTemporal(async (client) => {
      const status = await askTrainer({ client, tenant: o.tenant, waitSeconds: o.wait });
      if (!status)
        console.log(
          `tenant ${o.tenant} has no tag trainer yet: it starts with the first upload of tagged cases, or with \`train\``,
        );
      else
        console.log(
          `${t(status.state)}${status.pending ? ', cases changed since the last training' : ''}\n${describeLast(status.last)}`,
        );
    }),
  );

program.parseAsync().catch((err) => {
  console.error(`tags: ${t(String(err.message))}`);
  process.exitCode = 1;
});
