/**
 * A small JSON client for the API under benchmark. It spreads requests over several keys of the
 * same tenant (the rate limit is per key), waits out 429 and 503, and for uploads turns a 408
 * into "wait for the same upload": the request is sent again, which attaches to the workflows
 * still running (uploads are idempotent), until the API answers 200.
 */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ClientStats {
  requests: number;
  /** Answers 408: the deadline passed before the upload finished (it went on in the background). */
  timeouts408: number;
  /** Answers 429 (rate limit) that were waited out. */
  rateLimited429: number;
  /** Answers 503 (no worker polling, dependency down) that were retried. */
  unavailable503: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ApiClient {
  readonly stats: ClientStats = { requests: 0, timeouts408: 0, rateLimited429: 0, unavailable503: 0 };
  private next = 0;

  constructor(
    readonly baseUrl: string,
    private readonly keys: string[],
    private readonly headers: Record<string, string> = {},
  ) {
    if (keys.length === 0) throw new Error('ApiClient needs at least one key');
  }

  /** The same keys and headers against another instance of the API. */
  at(baseUrl: string): ApiClient {
    return new ApiClient(baseUrl, this.keys, this.headers);
  }

  /** One request, no retries. */
  async raw<T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const key = this.keys[this.next++ % this.keys.length];
    const headers: Record<string, string> = { Authorization: `Bearer ${key}`, ...this.headers };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    this.stats.requests += 1;
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* keep the text for the error message */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  /**
   * A request retried on 429/503 (and, when `retry408`, on 408) until it gets another answer or
   * `maxWaitMs` has passed. Other answers are returned as they are.
   */
  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    o: { retry408?: boolean; maxWaitMs?: number } = {},
  ): Promise<ApiResponse<T>> {
    const giveUp = Date.now() + (o.maxWaitMs ?? 15 * 60_000);
    for (let attempt = 0; ; attempt++) {
      const res = await this.raw<T>(method, path, body);
      let waitMs: number | undefined;
      if (res.status === 429) {
        this.stats.rateLimited429 += 1;
        waitMs = 1000 * (Number(res.headers.get('Retry-After')) || 1);
      } else if (res.status === 503) {
        this.stats.unavailable503 += 1;
        waitMs = Math.min(5000, 500 * 2 ** attempt);
      } else if (res.status === 408 && o.retry408) {
        this.stats.timeouts408 += 1;
        waitMs = 1000;
      }
      if (waitMs === undefined) return res;
      if (Date.now() + waitMs > giveUp)
        throw new Error(
          `${method} ${path}: still ${res.status} after ${attempt + 1} attempts: ${JSON.stringify(res.body).slice(0, 300)}`,
        );
      await sleep(waitMs);
    }
  }

  /** An upload that must end in 200; returns its body (`success`, or `partial` with `failed`). */
  async upload<T = any>(path: string, body: unknown): Promise<T> {
    const res = await this.request<T>('POST', path, body, { retry408: true });
    if (res.status !== 200 && res.status !== 201)
      throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
    return res.body;
  }
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight; results keep the input order. */
export async function mapPool<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(workers);
  return results;
}

/** Splits a list into chunks of at most `size` items. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
