/**
 * Closed-loop measurement for the latency benchmark: `concurrency` lanes each send their next call
 * as soon as the previous one ends, until `count` calls were made or `maxMs` has passed. Samples
 * of several rounds are pooled: latencies over all of them, throughput as the calls answered over
 * the rounds' summed wall time. That throughput includes each round's start and its drain (the
 * last calls ending with fewer lanes busy), which weigh more on the mode with the longer calls
 * when rounds are short; the steady throughput counts only the part of each round where every
 * lane is busy.
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
  /**
   * The round's steady part, from the moment every lane has had an answer to the moment the last
   * call was sent (all lanes busy throughout), and the calls answered with success within it;
   * none when the round is too short to have one.
   */
  steady?: { seconds: number; ok: number };
}

/** What a call returns: a status (200 = success) and, for API calls, response details. */
export type Call = (i: number) => Promise<{ status: number; requestId?: string; serverTiming?: string }>;

export async function runRound(count: number, concurrency: number, maxMs: number, call: Call): Promise<Round> {
  const samples: CallSample[] = [];
  const answeredAt: number[] = [];
  const begin = performance.now();
  const end = begin + maxMs;
  const lanes = Math.max(1, Math.min(concurrency, count));
  let next = 0;
  let lastSentAt = Number.NaN;
  let everyLaneAnsweredAt = Number.NaN;
  let lanesAnswered = 0;
  const lane = async () => {
    let first = true;
    while (next < count && performance.now() < end) {
      const i = next++;
      const started = performance.now();
      if (i === count - 1) lastSentAt = started;
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
      if (sample.status === 200) answeredAt.push(started + sample.ms);
      if (first && ++lanesAnswered === lanes) everyLaneAnsweredAt = started + sample.ms;
      first = false;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  const finished = performance.now();
  const steadyEnd = Number.isNaN(lastSentAt) ? Math.min(end, finished) : lastSentAt;
  const steady =
    steadyEnd > everyLaneAnsweredAt
      ? {
          seconds: (steadyEnd - everyLaneAnsweredAt) / 1000,
          ok: answeredAt.filter((t) => t > everyLaneAnsweredAt && t <= steadyEnd).length,
        }
      : undefined;
  return { samples, seconds: (finished - begin) / 1000, steady };
}

export interface LatencyStats extends LatencySummary {
  /** Calls answered with success per second of wall time. */
  per_s: number;
  seconds: number;
  /** Calls answered with success per second of the rounds' steady parts (Round.steady); null without any. */
  steady_per_s: number | null;
}

const perSecond = (ok: number, seconds: number) => Math.round((ok / seconds) * 100) / 100;

/**
 * p50/p95/max over the successful calls of all rounds; per_s over their summed wall time,
 * steady_per_s over their summed steady parts.
 */
export function pooledStats(rounds: readonly Round[]): LatencyStats {
  const samples = rounds.flatMap((r) => r.samples);
  const seconds = rounds.reduce((a, r) => a + r.seconds, 0);
  const steady = rounds.flatMap((r) => (r.steady ? [r.steady] : []));
  const steadySeconds = steady.reduce((a, r) => a + r.seconds, 0);
  const summary = summarize(samples);
  return {
    ...summary,
    per_s: seconds > 0 ? perSecond(summary.ok, seconds) : Number.NaN,
    seconds: Math.round(seconds * 100) / 100,
    steady_per_s:
      steadySeconds > 0
        ? perSecond(
            steady.reduce((a, r) => a + r.ok, 0),
            steadySeconds,
          )
        : null,
  };
}

/** a / b rounded to 3 digits; null when either is missing. */
export const ratio = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? Math.round((a / b) * 1000) / 1000 : null;
