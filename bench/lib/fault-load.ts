/**
 * The steady mixed load of the fault benchmarks (bench:faults-local on `npm start`, bench:faults on
 * the cluster): per tenant and kind of request, one request every so often, sent on time whether
 * the previous ones have answered or not (open loop), as independent clients send them; so a
 * request in flight when a process dies does not hide what the next ones get. Every answer is a
 * sample; every upload carries a case id of its own, and the acknowledged ones are kept.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_LIMITS } from '../../api/app-deps';

export type Kind = 'search' | 'ask' | 'upload' | 'evaluate';

/** Each kind's deadline in the API (its default settings). */
export const DEADLINE_MS: Record<Kind, number> = {
  search: DEFAULT_LIMITS.deadlines.search,
  ask: DEFAULT_LIMITS.deadlines.model,
  upload: DEFAULT_LIMITS.deadlines.upload,
  evaluate: DEFAULT_LIMITS.deadlines.model,
};

export interface Sample {
  kind: Kind;
  tenant: string;
  start: number;
  end: number;
  /** 0: no answer at all (connection refused or reset, or none long past the deadline). */
  status: number;
  /** The case id of an upload. */
  id?: string;
  /** The body of a 5xx answer, shortened. */
  error?: string;
  /** An upload answered 200 `partial`: some of its items were not stored, and the answer says which. */
  partial?: boolean;
}

export interface Tenant {
  tenant: string;
  key: string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const caseRecord = (id: string, n: number) => ({
  id,
  subject: `Printer ${n} does not print after the update`,
  description: `After updating the driver the printer ${n} shows an error and prints nothing.`,
  url: `https://support.example.com/cases/${id}`,
  timeOfCreation: Date.now(),
});

const EVALUATION = {
  messages: [{ role: 'user', content: 'My printer stopped printing after the update' }],
  output: 'Reinstall the driver from Settings, or write to help@example.com.',
  rules: [{ id: 'no-email', description: 'The answer must not contain any email addresses.', severity: 'critical' }],
};

export class Load {
  readonly samples: Sample[] = [];
  /** Acknowledged uploads (200, every item stored): case id → the tenant's key. */
  readonly acknowledged = new Map<string, Tenant>();
  /** The start times of the requests in flight. */
  private readonly inFlight = new Set<{ start: number }>();
  private running = true;
  private readonly lanes: Promise<void>[] = [];
  private n = 0;

  constructor(
    private readonly o: {
      baseUrl: string;
      tenants: Tenant[];
      /** How often each kind is sent, per tenant; kinds not named are not sent. */
      everyMs: Partial<Record<Kind, number>>;
    },
  ) {}

  async call(o: Tenant & { kind: Kind; method: string; path: string; body?: unknown; id?: string }): Promise<Sample> {
    const start = Date.now();
    const entry = { start };
    this.inFlight.add(entry);
    let status = 0;
    let error: string | undefined;
    let partial: boolean | undefined;
    try {
      const res = await fetch(`${this.o.baseUrl}${o.path}`, {
        method: o.method,
        headers: { Authorization: `Bearer ${o.key}`, 'Content-Type': 'application/json' },
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
        signal: AbortSignal.timeout(DEADLINE_MS[o.kind] + 30_000),
      });
      status = res.status;
      const text = await res.text();
      if (status >= 500) error = text.slice(0, 200);
      if (o.kind === 'upload' && status === 200 && JSON.parse(text).result !== 'success') {
        partial = true;
        error = text.slice(0, 200);
      }
    } catch {
      status = 0;
    } finally {
      this.inFlight.delete(entry);
    }
    const sample = { kind: o.kind, tenant: o.tenant, start, end: Date.now(), status, id: o.id, error, partial };
    this.samples.push(sample);
    if (o.kind === 'upload' && status === 200 && !partial && o.id)
      this.acknowledged.set(o.id, { tenant: o.tenant, key: o.key });
    return sample;
  }

  /** Uploads a few cases for each tenant, so that searches and asks find something. */
  async seed(): Promise<void> {
    for (const t of this.o.tenants) {
      const data = [0, 1, 2].map((n) => caseRecord(`seed-${t.tenant}-${n}`, n));
      const seeded = await this.call({ kind: 'upload', ...t, method: 'POST', path: '/v1/cases', body: { data } });
      if (seeded.status !== 200)
        throw new Error(`seeding ${t.tenant} answered ${seeded.status}: ${seeded.error ?? ''}`);
    }
  }

  private request(kind: Kind, t: Tenant) {
    const post = (path: string, body: unknown, id?: string) =>
      this.call({ kind, ...t, method: 'POST', path, body, id });
    if (kind === 'search') return post('/v1/search/cases', { query: 'printer does not print after update' });
    if (kind === 'ask') return post('/v1/assistant/ask', { query: 'How do I fix a printer that stopped printing?' });
    if (kind === 'evaluate') return post('/v1/control/autoeval/evaluate', EVALUATION);
    const id = `fault-${randomUUID()}`;
    return post('/v1/cases', { data: [caseRecord(id, this.n++)] }, id);
  }

  start(): void {
    for (const t of this.o.tenants) {
      for (const [kind, every] of Object.entries(this.o.everyMs) as [Kind, number][]) {
        this.lanes.push(
          (async () => {
            const pending: Promise<unknown>[] = [];
            while (this.running) {
              pending.push(this.request(kind, t));
              await sleep(every);
            }
            await Promise.all(pending);
          })(),
        );
      }
    }
  }

  /** Resolves once every request started before `time` has its answer (or gave up on it). */
  async settled(time: number): Promise<void> {
    while ([...this.inFlight].some((r) => r.start < time)) await sleep(100);
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.lanes);
  }
}

/** Waits until every named process has a new pid (its supervisor started it again); the time it saw the last one, or null. */
export async function waitRestarted(o: {
  pid: (name: string) => number | undefined;
  names: string[];
  old: Map<string, number>;
  timeoutMs: number;
}): Promise<number | null> {
  const until = Date.now() + o.timeoutMs;
  while (Date.now() < until) {
    const pids = o.names.map((n) => o.pid(n));
    if (pids.every((p, i) => p !== undefined && p !== o.old.get(o.names[i]))) return Date.now();
    await sleep(100);
  }
  return null;
}
