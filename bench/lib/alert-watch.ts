/**
 * What a stack's alerting says while a fault happens (bench:observability): every second, the
 * alerts Prometheus's rules hold (`/api/v1/alerts`: pending and firing) and what Alertmanager
 * received (`/api/v2/alerts`, each with the alerts that inhibit or silence it), kept with the time
 * of the reading. `faultAlerts` reads them for one fault: when the alert naming its cause fired and
 * stopped firing, and which other alerts fired meanwhile, split into those Alertmanager inhibited
 * (symptoms the cause explains) and those it did not (they would notify beside the cause).
 */
import { round } from './run-info';

export interface PrometheusAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt?: string;
}

export interface AlertmanagerAlert {
  labels: Record<string, string>;
  status: { state: 'active' | 'suppressed' | 'unprocessed'; inhibitedBy: string[]; silencedBy: string[] };
}

/** One reading of both; null where that API did not answer. */
export interface AlertReading {
  at: number;
  prometheus: PrometheusAlert[] | null;
  alertmanager: AlertmanagerAlert[] | null;
}

export interface AlertUrls {
  prometheusUrl: string;
  alertmanagerUrl: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An alert's identity and how the result files name it: `Name{label="value",…}`, its labels sorted (alertname, severity and kind left out). */
export function alertKey(labels: Record<string, string>): string {
  const rest = Object.entries(labels)
    .filter(([name]) => !['alertname', 'severity', 'kind'].includes(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}="${value}"`);
  return `${labels.alertname}{${rest.join(',')}}`;
}

async function getJson<T>(url: string): Promise<T | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok ? ((await res.json()) as T) : null;
  } catch {
    return null;
  }
}

/** One reading of Prometheus's and Alertmanager's alerts. */
export async function readAlerts(urls: AlertUrls): Promise<AlertReading> {
  const at = Date.now();
  const [prometheus, alertmanager] = await Promise.all([
    getJson<{ data: { alerts: PrometheusAlert[] } }>(`${urls.prometheusUrl}/api/v1/alerts`),
    getJson<AlertmanagerAlert[]>(`${urls.alertmanagerUrl}/api/v2/alerts`),
  ]);
  return { at, prometheus: prometheus?.data.alerts ?? null, alertmanager };
}

/** The keys of the alerts firing in Prometheus at a reading (pending too with `pending`). */
export function firingKeys(reading: AlertReading, o: { pending?: boolean } = {}): string[] {
  return (reading.prometheus ?? [])
    .filter((a) => a.state === 'firing' || (o.pending && a.state === 'pending'))
    .map((a) => alertKey(a.labels));
}

/** Reads both APIs every `everyMs` (on time, whatever a reading took) until stop(). */
export class AlertWatch {
  readonly readings: AlertReading[] = [];
  private running = false;
  private loop?: Promise<void>;

  constructor(private readonly o: AlertUrls & { everyMs?: number }) {}

  start(): void {
    this.running = true;
    const every = this.o.everyMs ?? 1000;
    const begin = Date.now();
    this.loop = (async () => {
      for (let i = 1; this.running; i++) {
        this.readings.push(await readAlerts(this.o));
        const wait = begin + i * every - Date.now();
        if (wait > 0) await sleep(wait);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/** How Alertmanager treated another alert while it fired in Prometheus. */
export type Handling = 'notifying' | 'inhibited' | 'silenced' | 'not received';

export interface OtherAlert {
  alert: string;
  handling: Handling;
  /** Seconds from the kill to its first and last reading firing in Prometheus. */
  firing_from_s: number;
  firing_to_s: number;
  /** Readings where it fired in Prometheus and Alertmanager listed it active (it notifies), or inhibited. */
  readings_notifying: number;
  readings_inhibited: number;
  /** The alerts inhibiting it, as Alertmanager names them (fingerprints), when inhibited. */
  inhibited_by?: string[];
}

export interface FaultAlerts {
  /** Seconds from the kill to the first reading with the cause alert pending, firing in Prometheus, and listed by Alertmanager. */
  pending_after_s: number | null;
  firing_after_s: number | null;
  alertmanager_received_after_s: number | null;
  /** Seconds from the kill to the first reading, after it fired, with the cause alert no longer firing. */
  resolved_after_s: number | null;
  /** The cause alert's instances that fired (e.g. Prometheus's scrape and the API's view of the same dependency). */
  cause_instances: string[];
  /** Other alerts that fired and that Alertmanager did not inhibit (nor silence): they would notify beside the cause. */
  other_alerts_firing: string[];
  /** Other alerts that fired and that Alertmanager inhibited: symptoms the cause explains. */
  symptoms_inhibited: string[];
  /** Every other alert that fired in the window, with how Alertmanager treated it. */
  other_alerts: OtherAlert[];
  /** The alerts that name the same fault otherwise (the killed process's ProcessExited), with how Alertmanager treated them. */
  related_alerts: OtherAlert[];
  /** Alerts already firing at the kill. */
  firing_at_kill: string[];
  readings: number;
  /** Readings where Prometheus or Alertmanager did not answer. */
  readings_missed: { prometheus: number; alertmanager: number };
}

/** An alert that names the fault as well as its cause alert does: its name and the labels it must have. */
export interface RelatedAlert {
  alertname: string;
  labels: Record<string, string>;
}

const matches = (labels: Record<string, string>, r: RelatedAlert) =>
  labels.alertname === r.alertname && Object.entries(r.labels).every(([name, value]) => labels[name] === value);

/**
 * The alerts of one fault, from the readings taken from its kill (`killedAt`) to the end of its
 * window. Another alert counts as notifying when Alertmanager listed it active (neither inhibited
 * nor silenced) in any reading where it fired, or never listed it at all: the strict reading, since
 * a notification goes out after the route's group_wait, by which time the cause has mostly arrived.
 * Alerts matching `related` (the killed process's own ProcessExited) are the same fault named
 * otherwise: they are listed apart, not among the other alerts.
 */
export function faultAlerts(o: {
  readings: AlertReading[];
  cause: string;
  killedAt: number;
  related?: RelatedAlert[];
}): FaultAlerts {
  const readings = o.readings.filter((r) => r.at >= o.killedAt);
  const after = (at: number | undefined) => (at === undefined ? null : round((at - o.killedAt) / 1000, 1));
  const causeAlerts = (r: AlertReading) => (r.prometheus ?? []).filter((a) => a.labels.alertname === o.cause);
  const pending = readings.find((r) => causeAlerts(r).length > 0);
  const firing = readings.find((r) => causeAlerts(r).some((a) => a.state === 'firing'));
  const received = readings.find((r) => (r.alertmanager ?? []).some((a) => a.labels.alertname === o.cause));
  const resolved = firing
    ? readings.find((r) => r.at > firing.at && r.prometheus && !causeAlerts(r).some((a) => a.state === 'firing'))
    : undefined;
  const causeInstances = new Set<string>();
  for (const r of readings)
    for (const a of causeAlerts(r)) if (a.state === 'firing') causeInstances.add(alertKey(a.labels));

  const others = new Map<
    string,
    {
      labels: Record<string, string>;
      from: number;
      to: number;
      states: Set<Handling>;
      inhibitedBy: Set<string>;
      notifying: number;
      inhibited: number;
    }
  >();
  for (const r of readings) {
    const received = new Map((r.alertmanager ?? []).map((a) => [alertKey(a.labels), a]));
    for (const a of r.prometheus ?? []) {
      if (a.state !== 'firing' || a.labels.alertname === o.cause) continue;
      const key = alertKey(a.labels);
      const entry = others.get(key) ?? {
        labels: a.labels,
        from: r.at,
        to: r.at,
        states: new Set(),
        inhibitedBy: new Set(),
        notifying: 0,
        inhibited: 0,
      };
      entry.to = r.at;
      const inAlertmanager = received.get(key);
      if (inAlertmanager) {
        const { inhibitedBy, silencedBy, state } = inAlertmanager.status;
        if (inhibitedBy.length) {
          entry.states.add('inhibited');
          entry.inhibited += 1;
          for (const by of inhibitedBy) entry.inhibitedBy.add(by);
        } else if (silencedBy.length) entry.states.add('silenced');
        else if (state === 'active') {
          entry.states.add('notifying');
          entry.notifying += 1;
        }
      }
      others.set(key, entry);
    }
  }
  const handled: (OtherAlert & { related: boolean })[] = [...others].map(([alert, e]) => {
    const handling: Handling = e.states.has('notifying')
      ? 'notifying'
      : e.states.has('inhibited')
        ? 'inhibited'
        : e.states.has('silenced')
          ? 'silenced'
          : 'not received';
    return {
      alert,
      handling,
      firing_from_s: after(e.from)!,
      firing_to_s: after(e.to)!,
      readings_notifying: e.notifying,
      readings_inhibited: e.inhibited,
      ...(e.inhibitedBy.size ? { inhibited_by: [...e.inhibitedBy] } : {}),
      related: (o.related ?? []).some((r) => matches(e.labels, r)),
    };
  });
  const strip = ({ related: _related, ...alert }: OtherAlert & { related: boolean }): OtherAlert => alert;
  const otherAlerts = handled.filter((a) => !a.related).map(strip);
  const atKill = o.readings.filter((r) => r.at <= o.killedAt).pop();
  return {
    pending_after_s: after(pending?.at),
    firing_after_s: after(firing?.at),
    alertmanager_received_after_s: after(received?.at),
    resolved_after_s: after(resolved?.at),
    cause_instances: [...causeInstances].sort(),
    other_alerts_firing: otherAlerts
      .filter((a) => a.handling === 'notifying' || a.handling === 'not received')
      .map((a) => a.alert),
    symptoms_inhibited: otherAlerts.filter((a) => a.handling === 'inhibited').map((a) => a.alert),
    other_alerts: otherAlerts,
    related_alerts: handled.filter((a) => a.related).map(strip),
    firing_at_kill: atKill ? firingKeys(atKill) : [],
    readings: readings.length,
    readings_missed: {
      prometheus: readings.filter((r) => !r.prometheus).length,
      alertmanager: readings.filter((r) => !r.alertmanager).length,
    },
  };
}
