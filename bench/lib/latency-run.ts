/**
 * Closed-loop measurement for the latency benchmark: `concurrency` lanes each send their next call
 * as soon as the previous one ends, until `count` calls were made or `maxMs` has passed. Samples
 * of several rounds are pooled: latencies over all of them, throughput as the calls answered over
 * the rounds' summed wall time.
 */
import { Sample, summarize, type LatencySummary } from './load';

export interface CallSample extends Sample {
  /** The API's X-Request-Id (API calls only): pairs the call with its workflow. */
  requestId?: string;
  /** The response's Server-Timing header, when it had one. */
  serverTiming?: string;
}

export interface Round {
  samples: CallSample[];
  /** Wall time of the round, first call sent to last answer. */
  seconds: number;
}

/** What a call returns: a status (200 = success) and, for API calls, response details. */
export type Call = (i: number) => Promise<{ status: number; requestId?: string; serverTiming?: string }>;

export async function runRound(count: number, concurrency: number, maxMs: number, call: Call): Promise<Round> {
  const samples: CallSample[] = [];
  const begin = performance.now();
  const end = begin + maxMs;
  let next = 0;
  const lane = async () => {
    while (next < count && performance.now() < end) {
      const i = next++;
      const started = performance.now();
      let sample: CallSample;
      try {
        const r = await call(i);
        sample = {
          ms: performance.now() - started,
          status: r.status,
          requestId: r.requestId,
          serverTiming: r.serverTiming,
        };
      } catch {
        sample = { ms: performance.now() - started, status: 0 };
      }
      samples.push(sample);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, lane));
  return { samples, seconds: (performance.now() - begin) / 1000 };
}

export interface LatencyStats extends LatencySummary {
  /** Calls answered with success per second of wall time. */
  per_s: number;
  seconds: number;
}

/** p50/p95/max over the successful calls of all rounds; per_s over their summed wall time. */
export function pooledStats(rounds: readonly Round[]): LatencyStats {
  const samples = rounds.flatMap((r) => r.samples);
  const seconds = rounds.reduce((a, r) => a + r.seconds, 0);
  const summary = summarize(samples);
  return {
    ...summary,
    per_s: seconds > 0 ? Math.round((summary.ok / seconds) * 100) / 100 : Number.NaN,
    seconds: Math.round(seconds * 100) / 100,
  };
}

/** a / b rounded to 3 digits; null when either is missing. */
export const ratio = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? Math.round((a / b) * 1000) / 1000 : null;
