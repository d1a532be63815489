/**
 * The readings of bench:observability, without a stack: how a fault's alerts are read from
 * Prometheus's and Alertmanager's answers (bench/lib/alert-watch.ts), and how the series of a
 * metrics endpoint are counted (bench/lib/metric-series.ts).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { alertKey, faultAlerts, type AlertReading, type AlertmanagerAlert } from '../../bench/lib/alert-watch';
import { countSeries } from '../../bench/lib/metric-series';

const KILL = 1_000_000;
const cause = { alertname: 'WeaviateDown', severity: 'page', kind: 'cause', job: 'weaviate', instance: 'w:1' };
const symptom = { alertname: 'ErrorRatioHigh', severity: 'page', kind: 'symptom', job: 'api' };
const other = { alertname: 'NoWorkerPolling', severity: 'page', kind: 'cause', job: 'worker', instance: 'k:1' };

const received = (labels: Record<string, string>, inhibitedBy: string[] = []): AlertmanagerAlert => ({
  labels,
  status: { state: inhibitedBy.length ? 'suppressed' : 'active', inhibitedBy, silencedBy: [] },
});

/** A reading `s` seconds after the kill. */
const at = (s: number, o: Partial<Omit<AlertReading, 'at'>>): AlertReading => ({
  at: KILL + s * 1000,
  prometheus: o.prometheus === undefined ? [] : o.prometheus,
  alertmanager: o.alertmanager === undefined ? [] : o.alertmanager,
});

describe('bench:observability readings', () => {
  it('names an alert by its name and its labels but severity and kind, sorted', () => {
    assert.equal(
      alertKey({ job: 'weaviate', alertname: 'WeaviateDown', instance: 'w:1', severity: 'page' }),
      'WeaviateDown{instance="w:1",job="weaviate"}',
    );
  });

  it('times the cause alert from pending to firing to resolved, and splits the other alerts by how Alertmanager held them', () => {
    const readings = [
      at(-1, {}),
      at(2, { prometheus: [{ labels: cause, state: 'pending' }] }),
      at(12, { prometheus: [{ labels: cause, state: 'firing' }] }),
      at(13, {
        prometheus: [
          { labels: cause, state: 'firing' },
          { labels: symptom, state: 'firing' },
          { labels: other, state: 'firing' },
        ],
        alertmanager: [received(cause), received(symptom, ['fp-cause']), received(other)],
      }),
      at(14, {
        prometheus: [
          { labels: cause, state: 'firing' },
          { labels: symptom, state: 'firing' },
        ],
        alertmanager: [received(cause), received(symptom, ['fp-cause'])],
      }),
      at(30, { prometheus: [], alertmanager: null }),
    ];
    const r = faultAlerts({ readings, cause: 'WeaviateDown', killedAt: KILL });
    assert.equal(r.pending_after_s, 2);
    assert.equal(r.firing_after_s, 12);
    assert.equal(r.alertmanager_received_after_s, 13);
    assert.equal(r.resolved_after_s, 30);
    assert.deepEqual(r.cause_instances, ['WeaviateDown{instance="w:1",job="weaviate"}']);
    assert.deepEqual(r.symptoms_inhibited, ['ErrorRatioHigh{job="api"}']);
    assert.deepEqual(r.other_alerts_firing, ['NoWorkerPolling{instance="k:1",job="worker"}']);
    assert.deepEqual(r.readings_missed, { prometheus: 0, alertmanager: 1 });
    assert.deepEqual(r.firing_at_kill, []);
  });

  it('counts a symptom that outlives its cause, active in Alertmanager, as notifying', () => {
    const readings = [
      at(12, { prometheus: [{ labels: cause, state: 'firing' }], alertmanager: [received(cause)] }),
      at(20, {
        prometheus: [
          { labels: cause, state: 'firing' },
          { labels: symptom, state: 'firing' },
        ],
        alertmanager: [received(cause), received(symptom, ['fp-cause'])],
      }),
      at(40, { prometheus: [{ labels: symptom, state: 'firing' }], alertmanager: [received(symptom)] }),
    ];
    const r = faultAlerts({ readings, cause: 'WeaviateDown', killedAt: KILL });
    assert.equal(r.resolved_after_s, 40);
    assert.deepEqual(r.other_alerts_firing, ['ErrorRatioHigh{job="api"}']);
    assert.deepEqual(
      r.other_alerts.map((a) => [
        a.handling,
        a.readings_inhibited,
        a.readings_notifying,
        a.firing_from_s,
        a.firing_to_s,
      ]),
      [['notifying', 1, 1, 20, 40]],
    );
  });

  it('counts an alert Alertmanager never received as notifying, and leaves the cause unresolved while it fires', () => {
    const readings = [
      at(12, {
        prometheus: [
          { labels: cause, state: 'firing' },
          { labels: other, state: 'firing' },
        ],
      }),
      at(13, { prometheus: null }),
    ];
    const r = faultAlerts({ readings, cause: 'WeaviateDown', killedAt: KILL });
    assert.equal(r.resolved_after_s, null, 'a reading Prometheus did not answer resolves nothing');
    assert.deepEqual(
      r.other_alerts.map((a) => a.handling),
      ['not received'],
    );
    assert.deepEqual(r.other_alerts_firing, ['NoWorkerPolling{instance="k:1",job="worker"}']);
  });

  it("lists the killed process's own ProcessExited apart from the other alerts", () => {
    const exited = { alertname: 'ProcessExited', severity: 'ticket', kind: 'cause', process: 'weaviate' };
    const elsewhere = { ...exited, process: 'worker' };
    const readings = [
      at(12, {
        prometheus: [
          { labels: cause, state: 'firing' },
          { labels: exited, state: 'firing' },
          { labels: elsewhere, state: 'firing' },
        ],
        alertmanager: [received(cause), received(exited), received(elsewhere)],
      }),
    ];
    const r = faultAlerts({
      readings,
      cause: 'WeaviateDown',
      killedAt: KILL,
      related: [{ alertname: 'ProcessExited', labels: { process: 'weaviate' } }],
    });
    assert.deepEqual(
      r.related_alerts.map((a) => a.alert),
      ['ProcessExited{process="weaviate"}'],
    );
    assert.deepEqual(r.other_alerts_firing, ['ProcessExited{process="worker"}']);
  });

  it('counts the series of an exposition, the tenant-labelled ones and their values apart', () => {
    const text = [
      '# HELP supportai_tenant_throttled_total 429s of a tenant',
      '# TYPE supportai_tenant_throttled_total counter',
      'supportai_tenant_throttled_total{tenant="acme"} 3',
      'supportai_tenant_throttled_total{tenant="other"} 7',
      'supportai_http_request_duration_seconds_bucket{operation="ask",status_class="2xx",le="0.5"} 1',
      'supportai_http_request_duration_seconds_sum{operation="ask",status_class="2xx"} 0.2',
      'supportai_http_request_duration_seconds_count{operation="ask",status_class="2xx"} 1',
      'supportai_process_cpu_seconds_total 1.5',
      '',
    ].join('\n');
    const counted = countSeries(text);
    assert.equal(counted.series, 6);
    assert.equal(counted.tenant_labelled, 2);
    assert.equal(counted.tenant_values, 2);
    assert.equal(counted.tenant_other, true);
    assert.deepEqual(counted.by_family, {
      supportai_http_request_duration_seconds: 3,
      supportai_tenant_throttled_total: 2,
      supportai_process_cpu_seconds_total: 1,
    });
  });
});
