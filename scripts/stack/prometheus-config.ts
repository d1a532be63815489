/**
 * The configuration files of a stack's Prometheus and Alertmanager (docs/operations.md,
 * "Prometheus and Alertmanager"), written into its data folder on every start:
 *
 * - `<dataDir>/prometheus/prometheus.yml`: the rules of ops/prometheus/alerts.yml, the
 *   Alertmanager to send to, and the scrape jobs. Processes the stack itself starts (`temporal`,
 *   `weaviate`, `prometheus`, `alertmanager`) are static targets; the APIs and workers (`api`,
 *   `api-sdk`, `worker`, `worker-sdk`), which launchers, tests and benchmarks start and stop on
 *   ports of their own, are read from files in `<dataDir>/prometheus/targets/` that
 *   `writeScrapeTargets` writes; Prometheus notices a changed file without a restart.
 * - `<dataDir>/alertmanager/alertmanager.yml`: ops/alertmanager/alertmanager.yml, with a webhook
 *   on its receiver when one is given.
 *
 * The local stacks scrape and evaluate every 2 s (LOCAL_INTERVAL_S): a dead process's cause alert
 * waits `for: 10s`, so it fires about 16 s after the kill (the goal is 30 s); a 15 s
 * interval, common in production, would take up to 40 s. At 2 s the stack's series cost Prometheus
 * a few percent of a core. Temporal's server, whose series are the most, is scraped every 15 s
 * (JOB_INTERVAL_S).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';

const root = path.resolve(__dirname, '..', '..');

/** The rules every stack's Prometheus loads, and the Alertmanager configuration it starts from. */
export const ALERT_RULES_FILE = path.join(root, 'ops', 'prometheus', 'alerts.yml');
export const ALERTMANAGER_TEMPLATE = path.join(root, 'ops', 'alertmanager', 'alertmanager.yml');

/** Scrape and rule-evaluation interval of the local stacks, in seconds (see above). */
export const LOCAL_INTERVAL_S = 2;

/** The jobs whose targets the stack knows when Prometheus starts. */
export const STATIC_JOBS = ['temporal', 'weaviate', 'prometheus', 'alertmanager'] as const;
/**
 * Jobs scraped less often than every LOCAL_INTERVAL_S, in seconds. Temporal's server exports some
 * 14,000 series once it has run a while (per namespace, task queue, workflow type and operation);
 * rendering them every 2 s costs the server CPU that every ask needs: in bench:observability at
 * dd94e01 it used 0.174 cores while scraped against 0.148 while not, answering fewer asks, and the
 * asks' throughput at 16 was 0.889 of the unscraped one while the searches' (no Temporal) was not
 * lower. 15 s is Prometheus's usual interval. No cause alert waits on it: TemporalDown also reads
 * the API's own probe of Temporal (`supportai_dependency_up`, scraped every 2 s), and
 * IngestionBacklog waits 5 minutes.
 */
export const JOB_INTERVAL_S: Partial<Record<StaticJob, number>> = { temporal: 15 };
/** The jobs whose targets are files in `<dataDir>/prometheus/targets/`, written by whoever starts the processes. */
export const FILE_JOBS = ['api', 'api-sdk', 'worker', 'worker-sdk'] as const;
/**
 * The launcher's supervisor (scripts/stack/supervisor-metrics.ts), found the same way: it listens on
 * a free port. docker-compose has none (Docker's restart policy is its supervisor).
 */
export const SUPERVISOR_JOB = 'supervisor' as const;
export type StaticJob = (typeof STATIC_JOBS)[number];
export type FileJob = (typeof FILE_JOBS)[number] | typeof SUPERVISOR_JOB;

/** Prometheus's target group: `host:port` addresses and labels added to their series. */
export interface TargetGroup {
  targets: string[];
  labels?: Record<string, string>;
}

export const prometheusDir = (dataDir: string) => path.join(dataDir, 'prometheus');
export const alertmanagerDir = (dataDir: string) => path.join(dataDir, 'alertmanager');
export const targetsDir = (dataDir: string) => path.join(prometheusDir(dataDir), 'targets');

/** The file of one writer's targets of a job: `<job>.json`, or `<job>.<name>.json` for another writer. */
const targetsFile = (dataDir: string, job: FileJob, name?: string) =>
  path.join(targetsDir(dataDir), name ? `${job}.${name}.json` : `${job}.json`);

/** Writes a file whole, through a temporary one, so Prometheus never reads half of it. */
function writeAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}

/**
 * Sets the targets of a job (`api`, `api-sdk`, `worker`, `worker-sdk`) that Prometheus scrapes: the
 * `host:port` addresses of `targets` (with `labels`), and any further `groups` (a group per process,
 * each with its labels). An address with port 0, an endpoint that is off, is left out. `name` gives a
 * writer a file of its own beside the launcher's (a test's API next to the stack's); writing the same
 * job and `name` again replaces its targets; none left removes the file. Prometheus reads the change
 * within seconds.
 */
export function writeScrapeTargets(o: {
  dataDir: string;
  job: FileJob;
  targets?: string[];
  labels?: Record<string, string>;
  groups?: TargetGroup[];
  name?: string;
}): void {
  const file = targetsFile(o.dataDir, o.job, o.name);
  const given = [{ targets: o.targets ?? [], ...(o.labels ? { labels: o.labels } : {}) }, ...(o.groups ?? [])];
  const groups = given
    .map((g) => ({ ...g, targets: g.targets.filter((t) => !t.endsWith(':0')) }))
    .filter((g) => g.targets.length > 0);
  if (groups.length === 0) fs.rmSync(file, { force: true });
  else writeAtomically(file, `${JSON.stringify(groups, null, 2)}\n`);
}

export interface PrometheusConfigOptions {
  dataDir: string;
  /** The static jobs' targets: Temporal's and Weaviate's metrics ports, Prometheus's and Alertmanager's own. */
  static: Record<StaticJob, TargetGroup[]>;
  /** Alertmanagers to send alerts to, `host:port`. */
  alertmanagers: string[];
  intervalSeconds?: number;
  rulesFile?: string;
}

/** prometheus.yml of a stack, as an object (YAML when written). */
export function prometheusConfig(o: PrometheusConfigOptions): Record<string, unknown> {
  const interval = `${o.intervalSeconds ?? LOCAL_INTERVAL_S}s`;
  return {
    global: {
      scrape_interval: interval,
      // No longer than the interval (Prometheus requires it): five missed scrapes make a cause alert.
      scrape_timeout: interval,
      evaluation_interval: interval,
    },
    rule_files: [o.rulesFile ?? ALERT_RULES_FILE],
    alerting: { alertmanagers: [{ static_configs: [{ targets: o.alertmanagers }] }] },
    scrape_configs: [
      ...STATIC_JOBS.map((job) => ({
        job_name: job,
        ...(JOB_INTERVAL_S[job] ? { scrape_interval: `${JOB_INTERVAL_S[job]}s` } : {}),
        static_configs: o.static[job],
      })),
      ...[...FILE_JOBS, SUPERVISOR_JOB].map((job) => ({
        job_name: job,
        file_sd_configs: [
          { files: [targetsFile(o.dataDir, job), targetsFile(o.dataDir, job, '*')], refresh_interval: '5s' },
        ],
      })),
    ],
  };
}

/**
 * Writes `<dataDir>/prometheus/prometheus.yml` and an empty targets folder (a previous run's targets
 * would be scraped, and alerted on, before their processes start again); returns its path.
 */
export function writePrometheusConfig(o: PrometheusConfigOptions): string {
  fs.rmSync(targetsDir(o.dataDir), { recursive: true, force: true });
  fs.mkdirSync(targetsDir(o.dataDir), { recursive: true });
  const file = path.join(prometheusDir(o.dataDir), 'prometheus.yml');
  writeAtomically(file, `# Written by the launcher on every start.\n${stringify(prometheusConfig(o))}`);
  return file;
}

interface Receiver {
  name: string;
  webhook_configs?: { url: string; send_resolved: boolean }[];
}

/** ops/alertmanager/alertmanager.yml, with a webhook on its receivers when `webhookUrl` is given. */
export function alertmanagerConfig(o: { webhookUrl?: string } = {}): Record<string, unknown> {
  const config = parse(fs.readFileSync(ALERTMANAGER_TEMPLATE, 'utf8')) as { receivers: Receiver[] };
  if (o.webhookUrl)
    for (const receiver of config.receivers)
      receiver.webhook_configs = [...(receiver.webhook_configs ?? []), { url: o.webhookUrl, send_resolved: true }];
  return config;
}

/** Writes `<dataDir>/alertmanager/alertmanager.yml`; returns its path. */
export function writeAlertmanagerConfig(o: { dataDir: string; webhookUrl?: string }): string {
  const file = path.join(alertmanagerDir(o.dataDir), 'alertmanager.yml');
  writeAtomically(file, `# Written by the launcher on every start.\n${stringify(alertmanagerConfig(o))}`);
  return file;
}
