/**
 * One fault of bench:observability's alert part: wait until no alert is pending or firing, let the
 * load run a baseline, kill the named processes with SIGKILL (pids from the launcher's pid files),
 * and read the alerts every second (bench/lib/alert-watch.ts) until the cause alert has fired and
 * stopped firing again (the supervisor restarted the process) and a settle period has passed, or
 * until a bound. Then: when the cause alert fired and resolved, which other alerts fired, and
 * whether Alertmanager inhibited them.
 */
import {
  AlertUrls,
  AlertWatch,
  FaultAlerts,
  faultAlerts,
  firingKeys,
  readAlerts,
  type RelatedAlert,
} from './alert-watch';
import { sleep, waitRestarted } from './fault-load';
import { round } from './run-info';

export interface AlertFault {
  /** Its name in the result file. */
  name: string;
  /** The supervised processes it kills, by their pid files' names. */
  kill: string[];
  /** The alert of ops/prometheus/alerts.yml that names this cause. */
  cause: string;
}

export interface AlertFaultTiming {
  /** Load before the kill, once the alerts are quiet. */
  baselineSeconds: number;
  /** Readings kept after the cause alert resolved, for symptoms that fire late. */
  settleSeconds: number;
  /** The most to wait for the alerts to be quiet before the kill (then it goes on and says what fired). */
  quietSeconds: number;
  /** The most to watch after the kill. */
  maxSeconds: number;
}

/** The killed processes' own ProcessExited (the supervisor's alert): the same fault, named by its process. */
const relatedOf = (fault: AlertFault): RelatedAlert[] =>
  fault.kill.map((process) => ({ alertname: 'ProcessExited', labels: { process } }));

export type AlertFaultResult = FaultAlerts & {
  alert: string;
  killed: string[];
  restarted_after_s: number | null;
  /** What the supervisor logged about the killed processes from the kill on. */
  supervisor: string[];
  /** Seconds it took for the alerts to be quiet before the kill (null: not within the bound), and the alerts pending or firing meanwhile. */
  quiet_after_s: number | null;
  waited_for_quiet: string[];
};

/**
 * Waits until Prometheus holds no pending or firing alert (a symptom of the previous fault may
 * still be pending); the seconds it took (null after `maxSeconds`) and the alerts it waited for.
 */
async function waitQuiet(
  urls: AlertUrls,
  maxSeconds: number,
): Promise<{ seconds: number | null; waited_for: string[] }> {
  const begin = Date.now();
  const waitedFor = new Set<string>();
  for (;;) {
    const reading = await readAlerts(urls);
    const active = firingKeys(reading, { pending: true });
    for (const key of active) waitedFor.add(key);
    if (reading.prometheus && active.length === 0)
      return { seconds: round((Date.now() - begin) / 1000, 1), waited_for: [...waitedFor] };
    if (Date.now() - begin > maxSeconds * 1000) return { seconds: null, waited_for: [...waitedFor] };
    await sleep(1000);
  }
}

/** The supervisor's lines about `names` logged at `from` or later. */
function supervisorLines(o: { log: string; names: string[]; from: number }): string[] {
  return o.log.split('\n').filter((line) => {
    const at = Date.parse(line.slice(0, line.indexOf(' ')));
    return at >= o.from && o.names.some((name) => line.includes(`] ${name} `));
  });
}

export async function runAlertFault(o: {
  fault: AlertFault;
  urls: AlertUrls;
  pid: (name: string) => number | undefined;
  /** The supervisor's log so far (its lines start with an ISO time). */
  supervisorLog: () => string;
  timing: AlertFaultTiming;
  log: (line: string) => void;
}): Promise<AlertFaultResult> {
  const { fault, timing, log } = o;
  const quiet = await waitQuiet(o.urls, timing.quietSeconds);
  if (quiet.seconds === null) {
    const now = firingKeys(await readAlerts(o.urls), { pending: true });
    log(`${fault.name}: alerts still pending or firing after ${timing.quietSeconds} s: ${now.join(', ')}`);
  }
  log(`${fault.name}: baseline ${timing.baselineSeconds} s`);
  await sleep(timing.baselineSeconds * 1000);
  const old = new Map(fault.kill.map((name) => [name, o.pid(name)!]));
  for (const [name, pid] of old) if (!pid) throw new Error(`no pid file for ${name}`);
  const watch = new AlertWatch(o.urls);
  watch.start();
  const killedAt = Date.now();
  try {
    for (const pid of old.values()) process.kill(pid, 'SIGKILL');
    log(`${fault.name}: killed ${fault.kill.join(', ')}; waiting for ${fault.cause}`);
    const restarted = waitRestarted({
      pid: o.pid,
      names: fault.kill,
      old,
      timeoutMs: timing.maxSeconds * 1000,
    });
    let restartedAt: number | null | undefined;
    void restarted.then((at) => {
      restartedAt = at;
      if (at) log(`${fault.name}: restarted by the supervisor after ${((at - killedAt) / 1000).toFixed(1)} s`);
    });
    let seen = { firing: false, resolved: false };
    const giveUp = killedAt + timing.maxSeconds * 1000;
    while (Date.now() < giveUp) {
      await sleep(1000);
      const now = faultAlerts({ readings: watch.readings, cause: fault.cause, killedAt, related: relatedOf(fault) });
      if (now.firing_after_s !== null && !seen.firing)
        log(`${fault.name}: ${fault.cause} firing after ${now.firing_after_s} s`);
      if (now.resolved_after_s !== null && !seen.resolved)
        log(`${fault.name}: ${fault.cause} resolved after ${now.resolved_after_s} s`);
      seen = { firing: now.firing_after_s !== null, resolved: now.resolved_after_s !== null };
      if (
        now.resolved_after_s !== null &&
        Date.now() >= killedAt + (now.resolved_after_s + timing.settleSeconds) * 1000
      )
        break;
    }
    await watch.stop();
    restartedAt ??= await restarted;
    const alerts = faultAlerts({ readings: watch.readings, cause: fault.cause, killedAt, related: relatedOf(fault) });
    log(
      `${fault.name}: ${fault.cause} firing after ${alerts.firing_after_s ?? 'never'} s, resolved after ${alerts.resolved_after_s ?? 'never'} s; other alerts notifying: ${alerts.other_alerts_firing.join(', ') || 'none'}; inhibited: ${alerts.symptoms_inhibited.join(', ') || 'none'}`,
    );
    return {
      alert: fault.cause,
      killed: fault.kill,
      restarted_after_s: restartedAt ? round((restartedAt - killedAt) / 1000, 1) : null,
      supervisor: supervisorLines({ log: o.supervisorLog(), names: fault.kill, from: killedAt }),
      quiet_after_s: quiet.seconds,
      waited_for_quiet: quiet.waited_for,
      ...alerts,
    };
  } finally {
    await watch.stop();
  }
}
