/**
 * The supervisor's own metrics (docs/operations.md, "ProcessExited"): for every process it runs,
 * whether it is up, how often it exited while up and how often a restart brought it back. A process
 * the supervisor repairs in two seconds (an embedding server) is never down long enough for the
 * alert on its dependency; its exit is still something an operator must learn of. The launcher that
 * runs the supervisor serves them on a free port of 127.0.0.1 and gives that port to Prometheus
 * (job `supervisor`).
 */
import { Counter, Gauge, Registry } from 'prom-client';
import { type MetricsServer, startMetricsServer } from '../../domain/observability/metrics-server';
import type { SupervisedProcess, Supervisor } from './supervisor';

export function serveSupervisorMetrics(o: { supervisor: Supervisor; port?: number }): Promise<MetricsServer> {
  const registry = new Registry();
  const processes = () => o.supervisor.supervised;
  new Gauge({
    name: 'supportai_supervised_up',
    help: 'Whether a supervised process is up: started and healthy (1), or waiting for its restart (0)',
    labelNames: ['process'],
    registers: [registry],
    collect() {
      for (const p of processes()) this.set({ process: p.name }, p.up ? 1 : 0);
    },
  });
  /** A counter whose value is the supervisor's own count, read at each scrape. */
  const counted = (name: string, help: string, read: (p: SupervisedProcess) => number) =>
    new Counter({
      name,
      help,
      labelNames: ['process'],
      registers: [registry],
      collect() {
        this.reset();
        for (const p of processes()) this.inc({ process: p.name }, read(p));
      },
    });
  counted('supportai_supervised_exits_total', 'Exits of a supervised process while it was up', (p) => p.exits);
  counted('supportai_supervised_restarts_total', 'Restarts that brought a supervised process back', (p) => p.restarts);
  return startMetricsServer({ host: '127.0.0.1', port: o.port ?? 0, registry });
}
