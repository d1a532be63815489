/**
 * The other tenant of bench:isolation: a steady mix of cheap requests (a case search, the
 * sentiment of a short message, `/healthz`), one started every `intervalMs` in turn, whatever the
 * answers' latency (an open loop, at most `maxInFlight` at once; a start past that is counted as
 * skipped). It runs on a thread of its own, so that what the benchmark's main thread does meanwhile
 * (building and sending 10 MB requests, reading Temporal histories) never delays its requests or
 * its clock. Samples carry their start as epoch milliseconds, so each phase takes its own.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export type MixKind = 'search' | 'sentiment' | 'health';
export const MIX_KINDS: readonly MixKind[] = ['search', 'sentiment', 'health'];

export interface MixSample {
  kind: MixKind;
  /** Start, epoch ms. */
  t: number;
  /** Milliseconds to the end of the answer (to the client's timeout when there was none). */
  ms: number;
  /** HTTP status; 0 when no answer came (timeout, connection error); -1 when skipped (too many in flight). */
  status: number;
}

export interface MixOptions {
  baseUrl: string;
  /** Keys of the other tenant, used in turn (the rate limit is per key). */
  keys: string[];
  intervalMs: number;
  maxInFlight: number;
  /** A request without an answer after this long counts as status 0. */
  timeoutMs: number;
  /** The thread stops by itself after this long, whatever happens to the benchmark. */
  maxDurationMs: number;
  searches: string[];
  messages: string[];
}

export interface SteadyMix {
  /** Every sample received so far. */
  readonly samples: MixSample[];
  /** Stops starting requests, waits for those in flight, and ends the thread. */
  stop(): Promise<void>;
}

/** Starts the mix on its own thread. */
export function startSteadyMix(o: MixOptions): SteadyMix {
  const samples: MixSample[] = [];
  // The thread loads this file under ts-node, as the main thread does.
  const code =
    `require(${JSON.stringify(require.resolve('ts-node/register/transpile-only'))});` +
    `require(${JSON.stringify(__filename)}).runMixThread();`;
  const worker = new Worker(code, { eval: true, workerData: o });
  let done: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  worker.on('message', (m: { samples?: MixSample[]; done?: boolean }) => {
    if (m.samples) samples.push(...m.samples);
    if (m.done) done();
  });
  worker.on('error', (err) => {
    console.error(`[isolation] the steady mix thread failed: ${err.stack ?? err}`);
    done();
  });
  worker.on('exit', () => done());
  return {
    samples,
    async stop() {
      worker.postMessage('stop');
      await finished;
      await worker.terminate();
    },
  };
}

/** The thread's side: runs the mix until told to stop or `maxDurationMs` has passed. */
export async function runMixThread(): Promise<void> {
  if (isMainThread || !parentPort) throw new Error('runMixThread runs on the mix thread');
  const port = parentPort;
  const o = workerData as MixOptions;
  let stopped = false;
  port.on('message', (m) => {
    if (m === 'stop') stopped = true;
  });
  const pending: MixSample[] = [];
  const flush = setInterval(() => pending.length && port.postMessage({ samples: pending.splice(0) }), 250);
  const inFlight = new Set<Promise<void>>();
  const send = (kind: MixKind, i: number): Promise<Response> => {
    const signal = AbortSignal.timeout(o.timeoutMs);
    if (kind === 'health') return fetch(`${o.baseUrl}/healthz`, { signal });
    const headers = { Authorization: `Bearer ${o.keys[i % o.keys.length]}`, 'Content-Type': 'application/json' };
    const body =
      kind === 'search'
        ? { query: o.searches[i % o.searches.length], limit: 5 }
        : { message: o.messages[i % o.messages.length] };
    return fetch(`${o.baseUrl}/v1/${kind === 'search' ? 'search/cases' : 'sentiment'}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
    });
  };
  const begin = performance.now();
  for (let i = 0; !stopped && performance.now() - begin < o.maxDurationMs; i++) {
    const kind = MIX_KINDS[i % MIX_KINDS.length];
    const t = Date.now();
    if (inFlight.size >= o.maxInFlight) pending.push({ kind, t, ms: 0, status: -1 });
    else {
      const started = performance.now();
      const p: Promise<void> = send(kind, Math.floor(i / MIX_KINDS.length))
        .then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        })
        .catch(() => 0)
        .then((status) => {
          pending.push({ kind, t, ms: performance.now() - started, status });
          inFlight.delete(p);
        });
      inFlight.add(p);
    }
    // Paced against the start, so a late timer does not lower the offered rate.
    const wait = begin + (i + 1) * o.intervalMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all([...inFlight]);
  clearInterval(flush);
  port.postMessage({ samples: pending.splice(0), done: true });
}
