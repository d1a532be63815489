/**
 * The metrics endpoint of the API and the worker: Prometheus' text format at `/metrics`, on a port
 * of its own (API_METRICS_PORT, WORKER_METRICS_PORT), apart from the API's, so that scraping never
 * waits behind tenants' requests and the endpoint is never exposed with the API. Anything else
 * answers 404.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { registry as processRegistry } from './metrics';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `registry` (by default the process's, metrics.ts) at `http://host:port/metrics`; port 0 takes a free one. */
export function startMetricsServer(o: { host: string; port: number; registry?: Registry }): Promise<MetricsServer> {
  const registry = o.registry ?? processRegistry;
  const server = http.createServer(function serveMetrics(req, res) {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      // Never what keeps a process running.
      server.unref();
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * The Temporal runtime's own metrics (its Rust core: schedule-to-start latency, slots, pollers,
 * sticky cache, task outcomes), served by the core at `host:port/metrics`, for `Runtime.install`;
 * none when the port is 0. Durations in seconds and counters with `_total`, as Prometheus names them.
 */
export function sdkMetricsTelemetry(o: { host: string; port: number }) {
  if (o.port === 0) return {};
  return {
    metrics: {
      prometheus: {
        bindAddress: o.host.includes(':') ? `[${o.host}]:${o.port}` : `${o.host}:${o.port}`,
        countersTotalSuffix: true,
        unitSuffix: true,
        useSecondsForDurations: true,
      },
    },
  };
}
