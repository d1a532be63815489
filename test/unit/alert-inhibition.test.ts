/**
 * Alertmanager's routing and inhibition (ops/alertmanager/alertmanager.yml), on a real Alertmanager
 * started from the launchers' spec (scripts/stack/monitoring.ts) with a webhook of the test's own:
 * alerts are posted to its API as Prometheus posts them, and the test checks which ones it holds
 * back and which ones reach the webhook.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import { monitoringServices } from '../../scripts/stack/monitoring';
import { ensureAlertmanager } from '../../scripts/stack/provision-observability';
import { Service, freePort, startService, stopService } from '../../scripts/stack/services';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Posted {
  labels: Record<string, string>;
  endsAt?: string;
}
interface Held {
  labels: Record<string, string>;
  fingerprint: string;
  status: { state: string; inhibitedBy: string[] };
}

/** Alerts as Prometheus sends them: labels, annotations, and an end while they still fire. */
const alert = (labels: Record<string, string>, resolved = false): Posted => ({
  labels,
  endsAt: new Date(Date.now() + (resolved ? -1000 : 5 * 60_000)).toISOString(),
});

const WEAVIATE_DOWN = { alertname: 'WeaviateDown', severity: 'page', kind: 'cause', instance: '127.0.0.1:2112' };
const ERROR_RATIO = { alertname: 'ErrorRatioHigh', severity: 'page', kind: 'symptom', job: 'api' };
const THROTTLED = { alertname: 'TenantThrottled', severity: 'ticket', kind: 'cause', tenant: 'acme' };
const CHAT_DOWN = { alertname: 'ChatModelDown', severity: 'ticket', kind: 'cause', dependency: 'chat_model' };
const FALLBACKS = { alertname: 'ModelFallbackRateHigh', severity: 'ticket', kind: 'symptom', model: 'gpt-x' };
const BURN_FAST = { alertname: 'SearchLatencyBurn', severity: 'page', kind: 'symptom', window: '1h' };
const BURN_SLOW = { alertname: 'SearchLatencyBurn', severity: 'ticket', kind: 'symptom', window: '6h' };

describe("Alertmanager's routing and inhibition (ops/alertmanager/alertmanager.yml)", function () {
  // A first run builds Alertmanager from its Go module (about 90 s on a cold cache).
  this.timeout(600_000);
  let dataDir: string;
  let alertmanager: Service;
  let url: string;
  let webhook: http.Server;
  const notified: { status: string; alerts: Posted[] }[] = [];

  const post = async (alerts: Posted[]) => {
    const res = await fetch(`${url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(alerts),
    });
    assert.equal(res.status, 200, await res.text());
  };
  const held = async (): Promise<Held[]> => (await (await fetch(`${url}/api/v2/alerts`)).json()) as Held[];
  const find = (alerts: Held[], labels: Record<string, string>) => {
    const found = alerts.find((a) => Object.entries(labels).every(([k, v]) => a.labels[k] === v));
    assert.ok(found, `Alertmanager does not hold ${JSON.stringify(labels)}: ${JSON.stringify(alerts)}`);
    return found;
  };
  const notifiedNames = () => new Set(notified.flatMap((n) => n.alerts.map((a) => a.labels.alertname)));

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'alert-inhibition-'));
    webhook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        notified.push(JSON.parse(body));
        res.end();
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    const ports = { prometheus: await freePort(), alertmanager: await freePort() };
    const { specs, env } = monitoringServices({
      bins: { prometheus: 'not-started-here', alertmanager: await ensureAlertmanager() },
      dataDir,
      logDir: path.join(dataDir, 'logs'),
      ports,
      temporal: [],
      weaviate: [],
      webhookUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/alerts`,
    });
    alertmanager = await startService(specs.find((s) => s.name === 'alertmanager')!);
    url = env.ALERTMANAGER_URL;
  });

  after(async () => {
    if (alertmanager) await stopService(alertmanager);
    await new Promise((r) => webhook?.close(r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds back a symptom while a paging cause fires, and notifies the rest', async () => {
    await post([WEAVIATE_DOWN, ERROR_RATIO, THROTTLED].map((labels) => alert(labels)));
    const alerts = await held();
    const cause = find(alerts, WEAVIATE_DOWN);
    assert.equal(cause.status.state, 'active');
    assert.equal(find(alerts, ERROR_RATIO).status.state, 'suppressed');
    assert.deepEqual(find(alerts, ERROR_RATIO).status.inhibitedBy, [cause.fingerprint]);
    // A ticket's cause is not held back, and holds back nothing but its own symptoms (TenantThrottled: none).
    assert.equal(find(alerts, THROTTLED).status.state, 'active');

    // Every group waits group_wait (10 s) before its first notification; an inhibited alert has none.
    const expected = [WEAVIATE_DOWN, THROTTLED].map((l) => l.alertname);
    for (let i = 0; i < 60 && !expected.every((name) => notifiedNames().has(name)); i++) await sleep(500);
    await sleep(2000);
    assert.deepEqual([...notifiedNames()].sort(), [...expected].sort());
    assert.ok(notified.every((n) => n.status === 'firing'));
  });

  it("holds back a dead chat model's fallbacks, and the slow burn of an objective while its fast burn pages", async () => {
    // The first test's alerts resolved: no paging cause holds back the symptoms below.
    await post([WEAVIATE_DOWN, ERROR_RATIO, THROTTLED].map((labels) => alert(labels, true)));
    await post([CHAT_DOWN, FALLBACKS, BURN_FAST, BURN_SLOW].map((labels) => alert(labels)));
    const alerts = await held();
    const [chat, fast] = [find(alerts, CHAT_DOWN), find(alerts, BURN_FAST)];
    assert.deepEqual([chat.status.state, fast.status.state], ['active', 'active']);
    assert.deepEqual(find(alerts, FALLBACKS).status.inhibitedBy, [chat.fingerprint]);
    assert.deepEqual(find(alerts, BURN_SLOW).status.inhibitedBy, [fast.fingerprint]);
  });
});
