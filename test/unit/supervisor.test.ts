/**
 * The supervisor (scripts/stack/supervisor.ts) over real child processes: small HTTP servers
 * killed with SIGKILL. The real services under it are tested in test/integration/supervisor.test.ts.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'mocha';
import { ServiceSpec, freePort, httpOk } from '../../scripts/stack/services';
import {
  Backoff,
  DEFAULT_BACKOFF,
  Supervisor,
  attemptAfterExit,
  backoffFromEnv,
  restartDelay,
} from '../../scripts/stack/supervisor';
import { alive } from '../helpers/processes';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An HTTP server on a port; while the count in `failFile` is above 0, it lowers it and exits with code 3 instead. */
const SERVER = `
const fs = require('node:fs');
const [port, failFile] = process.argv.slice(1);
const left = fs.existsSync(failFile) ? Number(fs.readFileSync(failFile, 'utf8')) : 0;
if (left > 0) { fs.writeFileSync(failFile, String(left - 1)); process.exit(3); }
require('node:http').createServer((req, res) => res.end('ok')).listen(Number(port), '127.0.0.1');
`;

describe('supervisor: restart delays', () => {
  it('doubles from the initial delay up to the cap', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 20].map((attempt) => restartDelay(DEFAULT_BACKOFF, attempt)),
      [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
    );
  });

  it('starts over at attempt 1 after a stable period, and counts on before one', () => {
    assert.equal(
      attemptAfterExit({ backoff: DEFAULT_BACKOFF, previousAttempts: 5, ranMs: DEFAULT_BACKOFF.stableMs }),
      1,
    );
    assert.equal(
      attemptAfterExit({ backoff: DEFAULT_BACKOFF, previousAttempts: 5, ranMs: DEFAULT_BACKOFF.stableMs - 1 }),
      6,
    );
    assert.equal(attemptAfterExit({ backoff: DEFAULT_BACKOFF, previousAttempts: 0, ranMs: 0 }), 1);
  });

  it('reads its settings from the environment and refuses what is not a number of milliseconds', () => {
    assert.deepEqual(backoffFromEnv({}), DEFAULT_BACKOFF);
    assert.deepEqual(
      backoffFromEnv({ RESTART_BACKOFF_INITIAL_MS: '250', RESTART_BACKOFF_MAX_MS: '8000', RESTART_STABLE_MS: '0' }),
      {
        ...DEFAULT_BACKOFF,
        initialMs: 250,
        maxMs: 8000,
        stableMs: 0,
      },
    );
    for (const bad of ['-1', 'soon', '1.5', '1e400'])
      assert.throws(() => backoffFromEnv({ RESTART_BACKOFF_MAX_MS: bad }), /RESTART_BACKOFF_MAX_MS must be/);
  });
});

describe('supervisor: real processes killed with SIGKILL', function () {
  this.timeout(60_000);
  let dir: string;
  let supervisor: Supervisor | undefined;
  let port: number;
  let failFile: string;

  const logLines = () =>
    fs.existsSync(path.join(dir, 'logs', 'supervisor.log'))
      ? fs
          .readFileSync(path.join(dir, 'logs', 'supervisor.log'), 'utf8')
          .trim()
          .split('\n')
      : [];
  const pidFile = () => path.join(dir, 'run', 'server.pid');
  const readPid = () => Number(fs.readFileSync(pidFile(), 'utf8'));
  const waitForLine = async (pattern: RegExp, count = 1) => {
    while (logLines().filter((l) => pattern.test(l)).length < count) await sleep(20);
  };

  const spec = (): ServiceSpec => ({
    name: 'server',
    cmd: process.execPath,
    args: ['-e', SERVER, String(port), failFile],
    logDir: path.join(dir, 'logs'),
    healthy: () => httpOk(`http://127.0.0.1:${port}/`),
    startTimeoutMs: 20_000,
    ports: [port],
  });
  const supervise = async (backoff: Partial<Backoff> = {}) => {
    supervisor = new Supervisor({
      logDir: path.join(dir, 'logs'),
      runDir: path.join(dir, 'run'),
      backoff: { initialMs: 200, factor: 2, maxMs: 800, stableMs: 60_000, ...backoff },
      print: () => undefined,
    });
    return supervisor.start(spec());
  };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'supervisor-'));
    port = await freePort();
    failFile = path.join(dir, 'fail');
  });

  afterEach(async () => {
    await supervisor?.stop();
    supervisor = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts a killed process again, with a log line for the exit and one for the recovery, and its new pid in its pid file', async () => {
    const p = await supervise();
    const first = readPid();
    assert.equal(first, p.child.pid);
    process.kill(first, 'SIGKILL');
    await waitForLine(/server is back/);
    const second = readPid();
    assert.notEqual(second, first);
    assert.equal(second, p.child.pid);
    assert.ok(await httpOk(`http://127.0.0.1:${port}/`));
    assert.equal(p.restarts, 1);
    const lines = logLines();
    assert.ok(
      lines.some((l) => l.includes(`server started (pid ${first})`)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some(
        (l) => l.includes(`server (pid ${first}) exited (signal SIGKILL)`) && l.includes('restart attempt 1 in 0.2 s'),
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => l.includes(`server is back (pid ${second}) after restart attempt 1`)),
      lines.join('\n'),
    );
  });

  it('backs off further while starts fail, and counts on when it dies again before the stable period', async () => {
    const p = await supervise();
    fs.writeFileSync(failFile, '2');
    process.kill(p.child.pid!, 'SIGKILL');
    await waitForLine(/server is back/);
    const lines = logLines();
    assert.ok(
      lines.some((l) =>
        /server restart attempt 1 failed: exited \(code 3\) while starting; restart attempt 2 in 0\.4 s/.test(l),
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) =>
        /server restart attempt 2 failed: exited \(code 3\) while starting; restart attempt 3 in 0\.8 s/.test(l),
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /server is back \(pid \d+\) after restart attempt 3/.test(l)),
      lines.join('\n'),
    );

    // Dead again before the stable period: the next attempt is the fourth, at the cap.
    process.kill(p.child.pid!, 'SIGKILL');
    await waitForLine(/server is back/, 2);
    assert.ok(
      logLines().some((l) => /exited \(signal SIGKILL\) after .*; restart attempt 4 in 0\.8 s/.test(l)),
      logLines().join('\n'),
    );
  });

  it('starts over at the initial delay when the process had run for the stable period', async () => {
    const p = await supervise({ stableMs: 0 });
    for (let round = 1; round <= 2; round++) {
      process.kill(p.child.pid!, 'SIGKILL');
      await waitForLine(/server is back/, round);
    }
    const exits = logLines().filter((l) => l.includes('exited (signal SIGKILL)'));
    assert.equal(exits.length, 2);
    for (const line of exits) assert.match(line, /restart attempt 1 in 0\.2 s/);
  });

  it("keeps trying while the dead process's port is still held, and starts it once the port is free", async () => {
    const p = await supervise();
    let holder: net.Server | undefined;
    // Bound as soon as the process is gone, long before the first restart attempt's delay is over.
    p.child.once('exit', () => {
      holder = net.createServer((socket) => socket.destroy()).listen(port, '127.0.0.1');
    });
    process.kill(p.child.pid!, 'SIGKILL');
    await waitForLine(
      new RegExp(`restart attempt 2 failed: port ${port} is still in use; restart attempt 3 in 0\\.8 s`),
    );
    assert.ok(!fs.existsSync(pidFile()), 'no pid file while nothing runs');
    assert.ok(
      logLines().some((l) =>
        l.includes(`restart attempt 1 failed: port ${port} is still in use; restart attempt 2 in 0.4 s`),
      ),
    );
    await new Promise((r) => holder!.close(r));
    await waitForLine(/server is back \(pid \d+\) after restart attempt [3-9]/);
    assert.ok(await httpOk(`http://127.0.0.1:${port}/`));
    assert.equal(readPid(), p.child.pid);
  });

  it('stops without restarting: no restart after stop, and no pid file left', async () => {
    const p = await supervise();
    const pid = p.child.pid!;
    await supervisor!.stop();
    assert.ok(!alive(pid), 'the process is stopped');
    assert.ok(!fs.existsSync(pidFile()));
    // Longer than the restart delay: nothing was spawned in its place.
    await sleep(600);
    assert.equal(p.child.pid, pid);
    const lines = logLines();
    const stopAt = lines.findIndex((l) => l.includes('stopping: no more restarts'));
    assert.ok(stopAt >= 0, lines.join('\n'));
    assert.deepEqual(lines.slice(stopAt + 1), []);
    assert.ok(!(await httpOk(`http://127.0.0.1:${port}/`).catch(() => false)));
  });

  it('stops a process that is waiting for its restart, and cancels the restart', async () => {
    const p = await supervise({ initialMs: 500 });
    const pid = p.child.pid!;
    process.kill(pid, 'SIGKILL');
    await waitForLine(/restart attempt 1 in 0\.5 s/);
    await supervisor!.stop();
    // Longer than the restart delay: nothing was spawned in its place.
    await sleep(800);
    assert.equal(p.child.pid, pid);
    assert.ok(!logLines().some((l) => /is back|failed/.test(l)), logLines().join('\n'));
    assert.ok(!(await httpOk(`http://127.0.0.1:${port}/`).catch(() => false)));
  });
});
