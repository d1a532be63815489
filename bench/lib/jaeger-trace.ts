/**
 * Jaeger for bench:observability: the binary the stack provisions (scripts/stack/provision-jaeger.ts,
 * built from its Go module once) started on free ports as the test stack starts it, and one trace
 * read back from its query API (`/api/traces/<id>`) by the id an answer's `X-Trace-Id` carries,
 * its spans counted per process (service name and pid).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureJaeger, jaegerSpec } from '../../scripts/stack/provision-jaeger';
import { freePort, startService, stopService } from '../../scripts/stack/services';
import { sleep } from './fault-load';

export interface BenchJaeger {
  /** Its query API, e.g. `http://127.0.0.1:<port>`. */
  queryUrl: string;
  /** The base URL of its OTLP/HTTP receiver, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  otlpEndpoint: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts Jaeger (in-memory storage) with its configuration and log in `dataDir`. */
export async function startBenchJaeger(o: { dataDir: string }): Promise<BenchJaeger> {
  const bin = await ensureJaeger();
  const free = new Set<number>();
  while (free.size < 3) free.add(await freePort());
  const [otlpHttp, query, queryGrpc] = [...free];
  fs.mkdirSync(o.dataDir, { recursive: true });
  const service = await startService(
    jaegerSpec({
      bin,
      ports: { otlpHttp, query, queryGrpc },
      dataDir: o.dataDir,
      logDir: path.join(o.dataDir, 'logs'),
    }),
  );
  return {
    queryUrl: `http://127.0.0.1:${query}`,
    otlpEndpoint: `http://127.0.0.1:${otlpHttp}`,
    pid: service.child.pid,
    stop: () => stopService(service),
  };
}

/** A span with the process that sent it. */
export interface TraceSpan {
  operationName: string;
  service: string;
  pid: number | null;
}

interface JaegerTrace {
  spans: { operationName: string; processID: string }[];
  processes: Record<string, { serviceName: string; tags?: { key: string; value: unknown }[] }>;
}

/** The spans Jaeger holds for `traceId` (all its traces under that id together); none yet: []. */
export async function traceSpans(o: { queryUrl: string; traceId: string }): Promise<TraceSpan[]> {
  const res = await fetch(`${o.queryUrl}/api/traces/${o.traceId}`, { signal: AbortSignal.timeout(5000) });
  if (res.status === 404) return [];
  if (!res.ok) throw new Error(`Jaeger answered ${res.status} for trace ${o.traceId}: ${await res.text()}`);
  const { data } = (await res.json()) as { data: JaegerTrace[] };
  return data.flatMap((t) =>
    t.spans.map((s) => {
      const process = t.processes[s.processID];
      const pid = process?.tags?.find((tag) => tag.key === 'process.pid')?.value;
      return {
        operationName: s.operationName,
        service: process?.serviceName ?? 'unknown',
        pid: pid === undefined ? null : Number(pid),
      };
    }),
  );
}

/**
 * The spans of a trace once Jaeger has them all: polled every 2 s until their count has not
 * changed for `stableMs` (longer than the batch span processor's delay, OTEL_BSP_SCHEDULE_DELAY,
 * 5 s by default), or `timeoutMs` has passed (then what it has).
 */
export async function settledTrace(o: {
  queryUrl: string;
  traceId: string;
  stableMs?: number;
  timeoutMs?: number;
}): Promise<TraceSpan[]> {
  const stableMs = o.stableMs ?? 8000;
  const giveUp = Date.now() + (o.timeoutMs ?? 90_000);
  let spans: TraceSpan[] = [];
  let changedAt = Date.now();
  while (Date.now() < giveUp) {
    const now = await traceSpans(o).catch(() => spans);
    if (now.length !== spans.length) {
      spans = now;
      changedAt = Date.now();
    } else if (spans.length > 0 && Date.now() - changedAt >= stableMs) break;
    await sleep(2000);
  }
  return spans;
}

/** Spans per process, `<service> (pid n)`, and per service. */
export function countSpans(spans: TraceSpan[]): {
  by_process: Record<string, number>;
  by_service: Record<string, number>;
} {
  const byProcess: Record<string, number> = {};
  const byService: Record<string, number> = {};
  for (const s of spans) {
    const name = `${s.service} (pid ${s.pid ?? '?'})`;
    byProcess[name] = (byProcess[name] ?? 0) + 1;
    byService[s.service] = (byService[s.service] ?? 0) + 1;
  }
  return { by_process: byProcess, by_service: byService };
}
