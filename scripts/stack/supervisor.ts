/**
 * Keeps every process of the stack running: Temporal, Weaviate, the embedding servers, the English
 * encoder, and under `npm start` the worker and the API. Each is started from its ServiceSpec and,
 * when it dies, started again with the same command, data and ports (Weaviate on its data folder
 * and key, Temporal on its SQLite file). The delay before a restart doubles with each consecutive
 * failure, up to a cap, and starts over once the process has run for a stable period. A restart
 * first checks that the dead process's ports are free: while one is still held (a process still
 * dying, an orphan), the attempt fails and is tried again after the next delay.
 *
 * Every start, exit, failed attempt and recovery is a line in `<logDir>/supervisor.log` (also
 * printed), and the pid of each process is in `<runDir>/<name>.pid` from its spawn until it exits.
 * Stopping ends all restarts first, then stops the processes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Service, ServiceSpec, portFree, spawnService, stopService, waitHealthy } from './services';

export interface Backoff {
  /** The delay before the first restart. */
  initialMs: number;
  /** Each further consecutive restart waits this many times longer than the one before, */
  factor: number;
  /** up to this. */
  maxMs: number;
  /** A process that has run this long counts as stable: its next restart waits `initialMs` again. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, factor: 2, maxMs: 30_000, stableMs: 60_000 };

/** The backoff with RESTART_BACKOFF_INITIAL_MS, RESTART_BACKOFF_MAX_MS and RESTART_STABLE_MS applied. */
export function backoffFromEnv(env: NodeJS.ProcessEnv = process.env): Backoff {
  const ms = (name: string, fallback: number) => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 0)
      throw new Error(`${name} must be a whole number of milliseconds, not "${value}"`);
    return n;
  };
  return {
    ...DEFAULT_BACKOFF,
    initialMs: ms('RESTART_BACKOFF_INITIAL_MS', DEFAULT_BACKOFF.initialMs),
    maxMs: ms('RESTART_BACKOFF_MAX_MS', DEFAULT_BACKOFF.maxMs),
    stableMs: ms('RESTART_STABLE_MS', DEFAULT_BACKOFF.stableMs),
  };
}

/** The delay before restart attempt `attempt` (1, 2, ...): initialMs × factor^(attempt − 1), at most maxMs. */
export function restartDelay(backoff: Backoff, attempt: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** Math.max(0, attempt - 1));
}

/**
 * The attempt number of the restart after an exit: 1 when the process had run for the stable
 * period (or never failed before), else one more than the attempts since it last was stable.
 */
export function attemptAfterExit(o: { backoff: Backoff; previousAttempts: number; ranMs: number }): number {
  return o.ranMs >= o.backoff.stableMs ? 1 : o.previousAttempts + 1;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
const exitOf = (code: number | null, signal: NodeJS.Signals | null) => (signal ? `signal ${signal}` : `code ${code}`);

/** A failed start: waitHealthy's error (with the log's tail) and the reason in a few words. */
class StartFailed extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

/** One supervised process; `child` is always its latest process. */
export class SupervisedProcess implements Service {
  /** Restarts that brought it back. */
  restarts = 0;
  /** Times it exited while it was up (a crash, a kill), each followed by a restart. */
  exits = 0;
  /** Consecutive restart attempts since it last ran for the stable period. */
  attempt = 0;
  service!: Service;
  runningSince = 0;
  /** Set while it is up (healthy since its last start). */
  up = false;
  /** Set once stopping: it is never started again. */
  stopped = false;
  timer?: NodeJS.Timeout;

  constructor(readonly spec: ServiceSpec) {}

  get name(): string {
    return this.spec.name;
  }

  get child() {
    return this.service.child;
  }

  get logFile(): string {
    return this.service.logFile;
  }
}

export class Supervisor {
  private readonly processes: SupervisedProcess[] = [];
  private stopping = false;
  private readonly backoff: Backoff;
  private readonly logFile: string;

  constructor(
    private readonly o: { logDir: string; runDir: string; backoff?: Backoff; print?: (line: string) => void },
  ) {
    this.backoff = o.backoff ?? DEFAULT_BACKOFF;
    fs.mkdirSync(o.logDir, { recursive: true });
    fs.mkdirSync(o.runDir, { recursive: true });
    this.logFile = path.join(o.logDir, 'supervisor.log');
  }

  /** The processes it runs, for its metrics (supervisor-metrics.ts). */
  get supervised(): readonly SupervisedProcess[] {
    return this.processes;
  }

  /** Starts a process and keeps it running. Rejects, with its log's tail, when its first start fails. */
  async start(spec: ServiceSpec): Promise<SupervisedProcess> {
    if (this.stopping) throw new Error(`${spec.name} not started: the stack is stopping`);
    const p = new SupervisedProcess(spec);
    this.processes.push(p);
    await this.launch(p);
    this.log(`${p.name} started (pid ${p.child.pid})`);
    return p;
  }

  /** Ends every restart, then stops the processes: those named in `first` (e.g. the API and the worker) before the others. */
  async stop(o: { first?: string[] } = {}): Promise<void> {
    if (!this.stopping) this.log('stopping: no more restarts');
    this.stopping = true;
    for (const p of this.processes) {
      p.stopped = true;
      clearTimeout(p.timer);
    }
    const stopAll = (list: SupervisedProcess[]) => Promise.all(list.map((p) => this.stopOne(p)));
    const first = new Set(o.first ?? []);
    await stopAll(this.processes.filter((p) => first.has(p.name)));
    await stopAll(this.processes.filter((p) => !first.has(p.name)));
  }

  private async stopOne(p: SupervisedProcess): Promise<void> {
    if (!p.service) return;
    await stopService(p.service);
    this.removePid(p);
  }

  /** Spawns the process (its ports free) and waits until it is healthy; kills it and throws when it is not. */
  private async launch(p: SupervisedProcess): Promise<void> {
    p.up = false;
    const service = spawnService(p.spec);
    p.service = service;
    if (service.child.pid !== undefined) fs.writeFileSync(this.pidFile(p), `${service.child.pid}\n`);
    service.child.once('exit', (code, signal) => this.exited(p, service, code, signal));
    try {
      await waitHealthy(service, async () => p.spec.healthy?.(service) ?? true, p.spec.startTimeoutMs);
    } catch (err) {
      const { exitCode, signalCode } = service.child;
      const reason =
        exitCode !== null || signalCode !== null
          ? `exited (${exitOf(exitCode, signalCode)}) while starting`
          : `not healthy within ${seconds(p.spec.startTimeoutMs)}`;
      await stopService(service, 2000);
      throw new StartFailed((err as Error).message, reason);
    }
    p.up = true;
    p.runningSince = Date.now();
  }

  private exited(p: SupervisedProcess, service: Service, code: number | null, signal: NodeJS.Signals | null): void {
    if (p.service !== service) return;
    this.removePid(p);
    // A process that dies while starting fails its start attempt (launch); a stopped one is not restarted.
    if (!p.up || p.stopped || this.stopping) return;
    p.up = false;
    p.exits += 1;
    const ranMs = Date.now() - p.runningSince;
    p.attempt = attemptAfterExit({ backoff: this.backoff, previousAttempts: p.attempt, ranMs });
    const delay = restartDelay(this.backoff, p.attempt);
    this.log(
      `${p.name} (pid ${service.child.pid}) exited (${exitOf(code, signal)}) after ${seconds(ranMs)}; restart attempt ${p.attempt} in ${seconds(delay)} (log ${service.logFile})`,
    );
    p.timer = setTimeout(() => void this.restart(p), delay);
  }

  private async restart(p: SupervisedProcess): Promise<void> {
    p.timer = undefined;
    if (p.stopped) return;
    const held = await this.heldPort(p.spec.ports);
    if (p.stopped) return;
    if (held !== undefined) return this.retry(p, `port ${held} is still in use`);
    try {
      await this.launch(p);
    } catch (err) {
      if (!p.stopped) this.retry(p, err instanceof StartFailed ? err.reason : String(err));
      return;
    }
    if (p.stopped) return;
    p.restarts += 1;
    this.log(`${p.name} is back (pid ${p.child.pid}) after restart attempt ${p.attempt}`);
  }

  private retry(p: SupervisedProcess, reason: string): void {
    const failed = p.attempt;
    p.attempt += 1;
    const delay = restartDelay(this.backoff, p.attempt);
    this.log(
      `${p.name} restart attempt ${failed} failed: ${reason}; restart attempt ${p.attempt} in ${seconds(delay)} (log ${p.logFile})`,
    );
    p.timer = setTimeout(() => void this.restart(p), delay);
  }

  private async heldPort(ports: number[]): Promise<number | undefined> {
    for (const port of ports) if (!(await portFree(port))) return port;
    return undefined;
  }

  private pidFile(p: SupervisedProcess): string {
    return path.join(this.o.runDir, `${p.name}.pid`);
  }

  private removePid(p: SupervisedProcess): void {
    fs.rmSync(this.pidFile(p), { force: true });
  }

  private log(line: string): void {
    const text = `[supervisor] ${line}`;
    (this.o.print ?? console.log)(text);
    fs.appendFileSync(this.logFile, `${new Date().toISOString()} ${text}\n`);
  }
}
