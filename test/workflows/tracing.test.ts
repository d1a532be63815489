/**
 * The workflows' tracing interceptors (workflows/tracing.ts) in the bundle every worker runs
 * (worker/workflow-bundle.ts), on the time-skipping test server: a run started with a sampled trace
 * header is traced (its spans reach the `exporter` sink, its activity gets the header of the
 * workflow's own span), a run with an unsampled one creates no span and hands the header to its
 * activity unchanged, and a run without one passes nothing on.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Headers, type Payload } from '@temporalio/common';
import type {
  OpenTelemetrySinks,
  SerializableSpan,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import { Worker, type InjectedSinks } from '@temporalio/worker';
import { describe, it } from 'mocha';
import type { Grading } from '../../domain/evaluation/results';
import { workflowBundle } from '../../worker/workflow-bundle';
import { gradingTaskQueue } from '../../workflows/constants';
import { evaluateWorkflow } from '../../workflows/evaluate';
import { TRACE_HEADER, traceHeaderOf } from '../../workflows/tracing';
import { freshTenant } from '../helpers/harness';
import { timeSkippingEnv } from '../helpers/time-skipping';

/** A W3C trace context as the OpenTelemetry client interceptor puts it in the header. */
function traceContext(o: { sampled: boolean }) {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  const payload = defaultPayloadConverter.toPayload({ traceparent: `00-${traceId}-${spanId}-0${o.sampled ? 1 : 0}` });
  return { traceId, spanId, payload };
}

/** Runs one evaluate workflow started with `header` (or none); what its activity was sent and what was exported. */
async function evaluateWith(header: Payload | undefined) {
  const env = await timeSkippingEnv();
  const taskQueue = `wf-tracing-${randomBytes(5).toString('hex')}`;
  const activityHeaders: Headers[] = [];
  const exported: string[] = [];
  const base = { connection: env.nativeConnection, namespace: env.namespace ?? 'default' };
  const workers = [
    await Worker.create({
      ...base,
      taskQueue,
      workflowBundle: await workflowBundle(),
      sinks: {
        exporter: {
          export: {
            fn: (_info, spans: SerializableSpan[]) => {
              exported.push(...spans.map((s) => s.name));
            },
          },
        },
      } satisfies InjectedSinks<OpenTelemetrySinks>,
    }),
    await Worker.create({
      ...base,
      taskQueue: gradingTaskQueue(taskQueue),
      activities: { evaluate: async () => ({ judge: 'builtin', results: [] }) as unknown as Grading },
      interceptors: {
        activity: [
          () => ({
            inbound: {
              execute: (input, next) => {
                activityHeaders.push(input.headers);
                return next(input);
              },
            },
          }),
        ],
      },
    }),
  ];
  const client = new Client({
    connection: env.connection,
    namespace: env.namespace ?? 'default',
    interceptors: {
      workflow: [
        {
          startWithDetails: (input, next) =>
            next(header ? { ...input, headers: { ...input.headers, [TRACE_HEADER]: header } } : input),
        },
      ],
    },
  });
  const runs = workers.map((w) => w.run());
  try {
    const tenant = freshTenant();
    await client.workflow.execute(evaluateWorkflow, {
      taskQueue,
      workflowId: `evaluate:${tenant}:tracing`,
      args: [{ tenant, messages: [{ role: 'user', content: 'Hi' }], output: 'Hello', rules: [] }],
    });
  } finally {
    for (const w of workers) w.shutdown();
    await Promise.all(runs);
  }
  assert.equal(activityHeaders.length, 1, 'one activity ran');
  return { activityHeader: activityHeaders[0][TRACE_HEADER] as Payload | undefined, exported };
}

describe('workflow tracing: only sampled runs are traced', function () {
  this.timeout(120_000);

  it('traces a run started with a sampled header: its spans are exported, its activity is a child of the run', async () => {
    const sent = traceContext({ sampled: true });
    const { activityHeader, exported } = await evaluateWith(sent.payload);
    assert.ok(exported.includes('RunWorkflow:evaluateWorkflow'), JSON.stringify(exported));
    const got = traceHeaderOf({ [TRACE_HEADER]: activityHeader! });
    assert.equal(got?.sampled, true);
    assert.equal(got?.traceId, sent.traceId);
    assert.notEqual(got?.spanId, sent.spanId, "the activity's parent is the workflow's span");
  });

  it('hands an unsampled header to the activity unchanged and exports nothing', async () => {
    const sent = traceContext({ sampled: false });
    const { activityHeader, exported } = await evaluateWith(sent.payload);
    assert.deepEqual(exported, []);
    assert.ok(activityHeader);
    assert.deepEqual(Buffer.from(activityHeader.data!), Buffer.from(sent.payload.data!));
    const got = traceHeaderOf({ [TRACE_HEADER]: activityHeader });
    assert.deepEqual([got?.sampled, got?.traceId, got?.spanId], [false, sent.traceId, sent.spanId]);
  });

  it('passes no header on from a run started without one', async () => {
    const { activityHeader, exported } = await evaluateWith(undefined);
    assert.equal(activityHeader, undefined);
    assert.deepEqual(exported, []);
  });

  it('reads a header it cannot parse as sampled, leaving the decision to the interceptors', () => {
    for (const carrier of [
      {},
      { traceparent: 'garbage' },
      { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-zz` },
    ])
      assert.equal(traceHeaderOf({ [TRACE_HEADER]: defaultPayloadConverter.toPayload(carrier) })?.sampled, true);
    assert.equal(traceHeaderOf({}), undefined);
  });
});
