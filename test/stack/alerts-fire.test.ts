/**
 * The alerts fire on real faults: against the test stack's own Prometheus and Alertmanager (started
 * by `npm test` with the stack), the short-query embedding server and then Weaviate are killed with
 * SIGKILL and kept down until the matching cause alert fires in Prometheus's alerts API, within 30 s
 * of the kill (the issue's goal), and reaches a webhook of the test's own through Alertmanager;
 * released, the supervisor starts them again and the alert resolves, in Prometheus and at the
 * webhook. No other cause alert fires meanwhile: only symptoms may, and Alertmanager keeps those from
 * the webhook.
 *
 * Kept down: the supervisor restarts the embedding server within about 2 s, shorter than any alert
 * waits (a restart the supervisor repairs at once pages nobody), so the test holds the dead
 * process's port, as a process that keeps crashing would leave it down: the supervisor's restarts
 * fail, and clients' connections are reset as by a dead server.
 *
 * An API of the test's own exports its metrics (the dependency gauges that EmbeddingServerDown and
 * WeaviateDown read) on a free port, registered as a scrape target of the stack's Prometheus.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import { setAlertmanagerWebhook } from '../../scripts/stack/monitoring';
import { writeScrapeTargets } from '../../scripts/stack/prometheus-config';
import { freePort } from '../../scripts/stack/services';
import { runDir } from '../../scripts/stack/stack';
import { type ApiInstance, apiInstance, requireStack } from '../helpers/harness';
import { alive } from '../helpers/processes';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The goal: a fault's cause alert fires within 30 s of the kill. */
const FIRING_GOAL_MS = 30_000;
/** This test's file of scrape targets, beside the stack's (writeScrapeTargets). */
const TARGETS_NAME = 'alerts-fire';

/**
 * Holds a port on loopback as a dead server's: it listens, so that nothing else can (the
 * supervisor's restarts fail), and resets every connection at once, so that clients fail as they do
 * against a dead process (ECONNRESET, which the API's breakers count as refused, as ECONNREFUSED).
 * Resolves to the function that frees it.
 */
function holdPortResetting(port: number): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.resetAndDestroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(() => new Promise((done) => server.close(() => done()))));
  });
}

interface PromAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}
interface Notification {
  status: 'firing' | 'resolved';
  alerts: { status: string; labels: Record<string, string> }[];
}

describe('alerts fire on real faults (the test stack’s Prometheus and Alertmanager)', function () {
  this.timeout(300_000);
  let dataDir: string;
  let prometheus: string;
  let api: ApiInstance | undefined;
  let webhook: http.Server;
  const notifications: Notification[] = [];

  const alerts = async (): Promise<PromAlert[]> => {
    const res = await fetch(`${prometheus}/api/v1/alerts`, { signal: AbortSignal.timeout(5000) });
    return ((await res.json()) as { data: { alerts: PromAlert[] } }).data.alerts;
  };
  const firing = async () => (await alerts()).filter((a) => a.state === 'firing');
  const pidOf = (name: string) => Number(fs.readFileSync(path.join(runDir(dataDir), `${name}.pid`), 'utf8'));
  const supervisorLog = () => fs.readFileSync(path.join(dataDir, 'logs', 'supervisor.log'), 'utf8');
  const notified = (alertname: string, status: Notification['status']) =>
    notifications.some((n) => n.alerts.some((a) => a.labels.alertname === alertname && a.status === status));

  /** Polls `check` every second until it returns a value, for at most `ms`; fails with `what`. */
  async function waitFor<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = await check();
      if (found !== undefined) return found;
      if (Date.now() > deadline) assert.fail(`${what} within ${ms / 1000} s`);
      await sleep(1000);
    }
  }

  before(async () => {
    requireStack();
    dataDir = process.env.SUPPORT_AI_TEST_DATA!;
    prometheus = process.env.PROMETHEUS_URL!;
    assert.ok(
      prometheus && process.env.ALERTMANAGER_URL,
      '`npm test` starts Prometheus and Alertmanager with the stack',
    );
    webhook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        notifications.push(JSON.parse(body));
        res.end();
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    await setAlertmanagerWebhook({
      dataDir,
      alertmanagerUrl: process.env.ALERTMANAGER_URL!,
      webhookUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/alerts`,
    });
    const metricsPort = await freePort();
    api = await apiInstance({ API_METRICS_PORT: String(metricsPort) });
    writeScrapeTargets({ dataDir, job: 'api', name: TARGETS_NAME, targets: [`127.0.0.1:${metricsPort}`] });
    await waitFor('Prometheus scrapes the API', 60_000, async () => {
      const res = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent('up{job="api"}')}`);
      const { data } = (await res.json()) as { data: { result: { value: [number, string] }[] } };
      return data.result.some((r) => r.value[1] === '1') || undefined;
    });
    // A healthy stack fires nothing (a fault of an earlier test has resolved by now).
    await waitFor('no alert firing before the faults', 90_000, async () =>
      (await firing()).length === 0 ? true : undefined,
    );
  });

  after(async () => {
    writeScrapeTargets({ dataDir, job: 'api', name: TARGETS_NAME, targets: [] });
    await api?.close();
    await setAlertmanagerWebhook({ dataDir, alertmanagerUrl: process.env.ALERTMANAGER_URL! }).catch(() => undefined);
    await new Promise((r) => webhook?.close(r));
  });

  /**
   * Kills a supervised process, holds its port until `alertname` fires (and reaches the webhook),
   * then lets the supervisor restart it and waits for the alert to resolve. Returns every alert
   * that fired meanwhile.
   */
  async function fault(o: { name: string; port: number; alertname: string }): Promise<PromAlert[]> {
    const pid = pidOf(o.name);
    const logBefore = supervisorLog().length;
    const killed = Date.now();
    process.kill(pid, 'SIGKILL');
    while (alive(pid)) await sleep(20);
    const release = await holdPortResetting(o.port);
    const seen: PromAlert[] = [];
    try {
      await waitFor(`${o.alertname} firing after ${o.name} was killed`, FIRING_GOAL_MS, async () => {
        const now = await firing();
        seen.push(...now);
        return now.some((a) => a.labels.alertname === o.alertname) || undefined;
      });
      console.log(`      ${o.alertname} fired ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill`);
      // Alertmanager sends a new group after group_wait (10 s).
      await waitFor(`${o.alertname} at the webhook`, 60_000, async () => {
        seen.push(...(await firing()));
        return notified(o.alertname, 'firing') || undefined;
      });
    } finally {
      await release();
    }
    await waitFor(
      `${o.name} restarted by the supervisor`,
      120_000,
      async () => supervisorLog().slice(logBefore).includes(`${o.name} is back (pid `) || undefined,
    );
    await waitFor(`${o.alertname} resolved`, 120_000, async () => {
      const now = await alerts();
      seen.push(...now.filter((a) => a.state === 'firing'));
      return now.some((a) => a.labels.alertname === o.alertname) ? undefined : true;
    });
    // Changes of a group reach the receiver every group_interval (30 s).
    await waitFor(
      `${o.alertname} resolved at the webhook`,
      90_000,
      async () => notified(o.alertname, 'resolved') || undefined,
    );
    return seen;
  }

  /**
   * Only the expected cause, the supervisor's ProcessExited of the killed process, and symptoms
   * fired; the webhook got the cause and no symptom.
   */
  function assertOnly(seen: PromAlert[], alertname: string, killed: string): void {
    const causes = seen.filter((a) => a.labels.kind === 'cause');
    assert.deepEqual(
      [...new Set(causes.filter((a) => a.labels.alertname !== 'ProcessExited').map((a) => a.labels.alertname))],
      [alertname],
      'only the matching cause alert fires',
    );
    // An earlier fault's ProcessExited may still be in its minute.
    const exited = causes.filter((a) => a.labels.alertname === 'ProcessExited').map((a) => a.labels.process);
    assert.ok(exited.includes(killed), `the supervisor saw ${killed} exit (ProcessExited: ${exited.join(', ')})`);
    const sent = new Set(notifications.flatMap((n) => n.alerts.map((a) => a.labels.alertname)));
    const symptoms = seen.filter((a) => a.labels.kind === 'symptom').map((a) => a.labels.alertname);
    for (const name of symptoms) assert.ok(!sent.has(name), `${name} reached the webhook beside ${alertname}`);
  }

  it('EmbeddingServerDown fires when the short-query embedding server dies, and resolves once it is back', async () => {
    const port = Number(new URL(process.env.EMBEDDINGS_QUERY_URL!).port);
    const seen = await fault({ name: 'embeddings-query', port, alertname: 'EmbeddingServerDown' });
    assertOnly(seen, 'EmbeddingServerDown', 'embeddings-query');
    const alert = seen.find((a) => a.labels.alertname === 'EmbeddingServerDown')!;
    assert.equal(alert.labels.job, 'api', "the API's probe saw it");
    assert.match(alert.labels.dependency, /^embeddings/);
  });

  it('WeaviateDown fires when Weaviate dies, and resolves once it is back', async () => {
    notifications.length = 0;
    const seen = await fault({
      name: 'weaviate',
      port: Number(process.env.WEAVIATE_HTTP_PORT),
      alertname: 'WeaviateDown',
    });
    assertOnly(seen, 'WeaviateDown', 'weaviate');
    const jobs = new Set(seen.filter((a) => a.labels.alertname === 'WeaviateDown').map((a) => a.labels.job));
    assert.ok(jobs.has('weaviate'), 'its metrics endpoint stopped answering');
  });
});
