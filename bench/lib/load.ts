/**
 * Load shapes of the fairness benchmark: a closed loop that sends one request at a time on a fixed
 * pace (the measured tenant), an open loop that starts requests at a fixed rate with a bound on
 * those in flight (a neighbour at its rate limit), and latency summaries. Every loop is bounded:
 * by a request count, or by a stop() that the caller always calls.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The value at quantile q (0..1) of a list, nearest-rank method; NaN for an empty list. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export interface Sample {
  /** Milliseconds from sending the request to the end of the answer. */
  ms: number;
  status: number;
}

export interface LatencySummary {
  requests: number;
  ok: number;
  /** Answers other than 200, by status. */
  errors: Record<string, number>;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}

/** p50/p95/max over the answers with status 200; the others are counted by status. */
export function summarize(samples: readonly Sample[]): LatencySummary {
  const ok = samples.filter((s) => s.status === 200).map((s) => s.ms);
  const errors: Record<string, number> = {};
  for (const s of samples) if (s.status !== 200) errors[s.status] = (errors[s.status] ?? 0) + 1;
  const r = (x: number) => Math.round(x * 10) / 10;
  return {
    requests: samples.length,
    ok: ok.length,
    errors,
    p50_ms: r(percentile(ok, 0.5)),
    p95_ms: r(percentile(ok, 0.95)),
    max_ms: r(ok.length ? Math.max(...ok) : Number.NaN),
  };
}

/** Times one request; a thrown error (connection refused, reset) counts as status 0. */
export async function timed(send: () => Promise<{ status: number }>): Promise<Sample> {
  const started = performance.now();
  let status = 0;
  try {
    status = (await send()).status;
  } catch {
    status = 0;
  }
  return { ms: performance.now() - started, status };
}

/**
 * `count` requests, one at a time, each started `intervalMs` after the previous one started (or
 * right after it ended, when it took longer); fewer when `maxMs` has passed first.
 */
export async function closedLoop(
  count: number,
  intervalMs: number,
  send: (i: number) => Promise<{ status: number }>,
  maxMs = Infinity,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const end = performance.now() + maxMs;
  for (let i = 0; i < count && performance.now() < end; i++) {
    const started = performance.now();
    samples.push(await timed(() => send(i)));
    const rest = intervalMs - (performance.now() - started);
    if (rest > 0) await sleep(rest);
  }
  return samples;
}

export interface OpenLoop {
  /** Stops starting requests and waits for those in flight; returns every sample. */
  stop(): Promise<Sample[]>;
  /** Requests not started because `maxInFlight` were already in flight. */
  readonly skipped: number;
}

/**
 * Starts a request every `intervalMs` until stop(), with at most `maxInFlight` in flight (a start
 * that would exceed it is skipped and counted), so the loop offers a fixed rate whatever the
 * latency, the way independent clients of one tenant would.
 */
export function openLoop(
  intervalMs: number,
  maxInFlight: number,
  send: (i: number) => Promise<{ status: number }>,
): OpenLoop {
  const samples: Sample[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let skipped = 0;
  let i = 0;
  const begin = performance.now();
  const loop = (async () => {
    while (!stopped) {
      if (inFlight.size < maxInFlight) {
        const p: Promise<void> = timed(() => send(i)).then((s) => {
          samples.push(s);
          inFlight.delete(p);
        });
        inFlight.add(p);
      } else {
        skipped += 1;
      }
      i += 1;
      // Paced against the start, so a late timer does not lower the offered rate.
      const wait = begin + i * intervalMs - performance.now();
      if (wait > 0) await sleep(wait);
    }
  })();
  return {
    get skipped() {
      return skipped;
    },
    async stop() {
      stopped = true;
      await loop;
      await Promise.all([...inFlight]);
      return samples;
    },
  };
}

/**
 * Runs `worker` on `concurrency` lanes until stop(); each lane starts its next call when the
 * previous one ends (an uploader keeping a fixed number of uploads in flight).
 */
export function lanes(
  concurrency: number,
  worker: (lane: number, round: number) => Promise<void>,
): { stop(): Promise<void> } {
  let stopped = false;
  const running = Array.from({ length: concurrency }, async (_, lane) => {
    for (let round = 0; !stopped; round++) await worker(lane, round);
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}
