/**
 * Tracing's off switch (domain/observability/tracing.ts): which settings turn it on, and that a
 * process without an OTLP endpoint loads no SDK, adds no request middleware, no Temporal
 * interceptor and no log fields, while one with an endpoint does. Each case runs in a fresh Node
 * process, since the SDK is global to a process.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'mocha';
import { tracingEndpoint } from '../../domain/observability/tracing';

const root = path.resolve(__dirname, '..', '..');

/** What a fresh process sees after startTracing, with `env` as its whole OTEL_* environment. */
function probe(env: Record<string, string>): Record<string, unknown> {
  const script = `
    const { context, trace } = require('@opentelemetry/api');
    const tracing = require('./domain/observability/tracing');
    const { requestTracing } = require('./api/middlewares/tracing');
    const worker = require('./worker/tracing');
    (async () => {
      const started = await tracing.startTracing({ service: 'probe' });
      const sdkLoaded = Object.keys(require.cache).some((file) => file.includes('@opentelemetry/sdk-trace-base'));
      const root = tracing.activeTracing()?.tracer.startSpan('root');
      const inRequest = (fn) => (root ? context.with(trace.setSpan(context.active(), root), fn) : fn());
      const fields = await inRequest(() => tracing.inSpan({ name: 'call' }, async () => tracing.traceLogFields()));
      root?.end();
      const seen = {
        started: started !== undefined,
        sdkLoaded,
        middleware: requestTracing() !== undefined,
        clientInterceptors: worker.tracingClientInterceptors() !== undefined,
        activityInterceptors: (worker.tracingWorkerInterceptors().activity ?? []).length,
        fields,
        rootTraceId: root?.spanContext().traceId,
        rootSpanId: root?.spanContext().spanId,
      };
      await tracing.stopTracing();
      console.log(JSON.stringify(seen));
    })();`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const out = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: root,
    env: { ...clean, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout.trim().split('\n').pop()!);
}

describe('tracing: the off switch', () => {
  it('is on only with an OTLP endpoint, and neither the SDK nor the exporter disabled', () => {
    assert.equal(tracingEndpoint({}), undefined);
    assert.equal(tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), undefined);
    assert.equal(tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://j:4318' }), 'http://j:4318');
    assert.equal(
      tracingEndpoint({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://j:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://k:4318/v1/traces',
      }),
      'http://k:4318/v1/traces',
    );
    assert.equal(
      tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://j:4318', OTEL_SDK_DISABLED: 'TRUE' }),
      undefined,
    );
    assert.equal(
      tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://j:4318', OTEL_SDK_DISABLED: 'false' }),
      'http://j:4318',
    );
    assert.equal(
      tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://j:4318', OTEL_TRACES_EXPORTER: 'none' }),
      undefined,
    );
  });

  it('without an endpoint loads no SDK and adds no middleware, interceptor or log field', function () {
    this.timeout(60_000);
    assert.deepEqual(probe({}), {
      started: false,
      sdkLoaded: false,
      middleware: false,
      clientInterceptors: false,
      activityInterceptors: 0,
      fields: {},
    });
    // Disabled the standard way, an endpoint alone does not turn it on.
    assert.equal(
      probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' }).started,
      false,
    );
  });

  it('with an endpoint starts the SDK, and a call within a request is a span of its trace', function () {
    this.timeout(60_000);
    // Nothing listens on the discard port: the export fails quietly, which is what an outage of the collector does.
    const seen = probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    assert.equal(seen.started, true);
    assert.equal(seen.sdkLoaded, true);
    assert.equal(seen.middleware, true);
    assert.equal(seen.clientInterceptors, true);
    assert.equal(seen.activityInterceptors, 1);
    const fields = seen.fields as { trace_id?: string; span_id?: string };
    assert.match(String(seen.rootTraceId), /^[0-9a-f]{32}$/);
    assert.equal(fields.trace_id, seen.rootTraceId);
    assert.match(String(fields.span_id), /^[0-9a-f]{16}$/);
    assert.notEqual(fields.span_id, seen.rootSpanId);
  });

  it('within a request the sampler left out, a call is no span of its own, and its log fields are those of the request', function () {
    this.timeout(60_000);
    const seen = probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: 'always_off' });
    assert.equal(seen.started, true);
    assert.match(String(seen.rootTraceId), /^[0-9a-f]{32}$/);
    assert.deepEqual(seen.fields, { trace_id: seen.rootTraceId, span_id: seen.rootSpanId });
  });
});
