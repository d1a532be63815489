/**
 * Prometheus and Alertmanager as services of a stack (`npm start`, the test stacks, the cluster),
 * supervised like the others: their specs, with the configuration files they read
 * (scripts/stack/prometheus-config.ts) written into the stack's data folder, both bound to
 * 127.0.0.1. PROMETHEUS_ENABLED=false leaves both out.
 */
import path from 'node:path';
import { ObservabilityBinaries } from './provision-observability';
import {
  FILE_JOBS,
  FileJob,
  StaticJob,
  TargetGroup,
  alertmanagerDir,
  prometheusDir,
  writeAlertmanagerConfig,
  writePrometheusConfig,
  writeScrapeTargets,
} from './prometheus-config';
import { ServiceSpec, httpOk } from './services';

/** Whether the launchers start Prometheus and Alertmanager (PROMETHEUS_ENABLED, default true). */
export function monitoringEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.PROMETHEUS_ENABLED ?? 'true';
  if (value !== 'true' && value !== 'false')
    throw new Error(`PROMETHEUS_ENABLED must be true or false, got "${value}"`);
  return value === 'true';
}

/** How long Prometheus keeps its samples (PROMETHEUS_RETENTION, a Prometheus duration; default 7 days). */
export function prometheusRetention(env: NodeJS.ProcessEnv = process.env): string {
  const value = env.PROMETHEUS_RETENTION || '7d';
  if (!/^(\d+(ms|s|m|h|d|w|y))+$/.test(value))
    throw new Error(`PROMETHEUS_RETENTION must be a duration such as 7d or 12h, got "${value}"`);
  return value;
}

/** The most disk Prometheus's samples may take before the oldest go, whatever their age. */
const RETENTION_SIZE = '2GB';

const local = (port: number) => `127.0.0.1:${port}`;

export interface MonitoringOptions {
  bins: Pick<ObservabilityBinaries, 'prometheus' | 'alertmanager'>;
  dataDir: string;
  logDir: string;
  ports: { prometheus: number; alertmanager: number };
  /** The scrape targets of Temporal's and Weaviate's metrics ports (each with labels naming the process, in a cluster). */
  temporal: TargetGroup[];
  weaviate: TargetGroup[];
  /** Where Alertmanager sends notifications (ALERTMANAGER_WEBHOOK_URL by default); none: alerts are only listed. */
  webhookUrl?: string;
}

/** Prometheus's and Alertmanager's specs, and the addresses the stack's environment names (PROMETHEUS_URL, ALERTMANAGER_URL). */
export function monitoringServices(o: MonitoringOptions): { specs: ServiceSpec[]; env: Record<string, string> } {
  const prometheusUrl = `http://${local(o.ports.prometheus)}`;
  const alertmanagerUrl = `http://${local(o.ports.alertmanager)}`;
  const staticTargets: Record<StaticJob, TargetGroup[]> = {
    temporal: o.temporal,
    weaviate: o.weaviate,
    prometheus: [{ targets: [local(o.ports.prometheus)] }],
    alertmanager: [{ targets: [local(o.ports.alertmanager)] }],
  };
  const prometheusConfig = writePrometheusConfig({
    dataDir: o.dataDir,
    static: staticTargets,
    alertmanagers: [local(o.ports.alertmanager)],
  });
  const alertmanagerConfig = writeAlertmanagerConfig({
    dataDir: o.dataDir,
    webhookUrl: o.webhookUrl ?? (process.env.ALERTMANAGER_WEBHOOK_URL || undefined),
  });
  const prometheus: ServiceSpec = {
    name: 'prometheus',
    cmd: o.bins.prometheus,
    args: [
      `--config.file=${prometheusConfig}`,
      `--storage.tsdb.path=${path.join(prometheusDir(o.dataDir), 'data')}`,
      `--storage.tsdb.retention.time=${prometheusRetention()}`,
      `--storage.tsdb.retention.size=${RETENTION_SIZE}`,
      `--web.listen-address=${local(o.ports.prometheus)}`,
      `--web.external-url=${prometheusUrl}`,
      '--log.level=warn',
    ],
    logDir: o.logDir,
    healthy: () => httpOk(`${prometheusUrl}/-/ready`),
    startTimeoutMs: 60_000,
    ports: [o.ports.prometheus],
  };
  const alertmanager: ServiceSpec = {
    name: 'alertmanager',
    cmd: o.bins.alertmanager,
    args: [
      `--config.file=${alertmanagerConfig}`,
      `--storage.path=${path.join(alertmanagerDir(o.dataDir), 'data')}`,
      `--web.listen-address=${local(o.ports.alertmanager)}`,
      `--web.external-url=${alertmanagerUrl}`,
      // One Alertmanager, no peers: no cluster port (it would listen on every interface).
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    logDir: o.logDir,
    healthy: () => httpOk(`${alertmanagerUrl}/-/ready`),
    startTimeoutMs: 60_000,
    ports: [o.ports.alertmanager],
  };
  return {
    specs: [prometheus, alertmanager],
    env: { PROMETHEUS_URL: prometheusUrl, ALERTMANAGER_URL: alertmanagerUrl },
  };
}

/** Sets Alertmanager's webhook (a test's receiver) and has it read its configuration again; none removes it. */
export async function setAlertmanagerWebhook(o: {
  dataDir: string;
  alertmanagerUrl: string;
  webhookUrl?: string;
}): Promise<void> {
  writeAlertmanagerConfig({ dataDir: o.dataDir, webhookUrl: o.webhookUrl });
  const res = await fetch(`${o.alertmanagerUrl}/-/reload`, { method: 'POST', signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`Alertmanager did not reload its configuration: ${res.status} ${await res.text()}`);
}

/**
 * The API and worker endpoints a launcher starts, as scrape targets: a group per process, labelled
 * `process` with its name (`api`, `worker-1`, …); a port of 0 is an endpoint that is off. `writer`
 * names the file beside others' (writeScrapeTargets).
 */
export function writeProcessTargets(o: {
  dataDir: string;
  processes: { name: string; ports: Partial<Record<FileJob, number>> }[];
  writer?: string;
}): void {
  for (const job of FILE_JOBS)
    writeScrapeTargets({
      dataDir: o.dataDir,
      job,
      name: o.writer,
      groups: o.processes
        .filter((p) => p.ports[job])
        .map((p) => ({ targets: [local(p.ports[job]!)], labels: { process: p.name } })),
    });
}
