/**
 * A recording pass-through in front of an OpenAI-compatible chat server (bench:models): the API
 * under benchmark is pointed at it instead of the server, and it forwards every request and reply
 * unchanged while noting, per call, what the API asked for (`max_tokens`, the response format's
 * schema name) and what the server answered (status, `usage`, `finish_reason`, `model`). The token
 * accounting of the API counts the same calls per tenant and capability; this shows each call
 * alone, so the longest reply can be held against its bound. Any OpenAI-compatible server works:
 * nothing here is specific to llama.cpp.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedCall {
  /** The label current when the call started (the benchmark's task). */
  label: string;
  path: string;
  /** The response format's JSON Schema name (`answer`, `summary`, `sentiment`, `tags`, ...); none for plain text. */
  schema?: string;
  /** `max_tokens` (or `max_completion_tokens`) of the request: the call's bound. */
  maxTokens?: number;
  /** The server's status; 0 when no answer came (the connection failed, or the API gave up and closed it). */
  status: number;
  promptTokens?: number;
  completionTokens?: number;
  finishReason?: string;
  /** The model the server says answered. */
  model?: string;
  /** The server's own timing of the call, when it reports one (llama.cpp's `timings`): reading the prompt, and generating. */
  promptMs?: number;
  predictedMs?: number;
  /** The reply's message content, its first CONTENT_CHARS characters (for error analysis). */
  content?: string;
  ms: number;
}

export interface ChatProxy {
  /** The base URL to give the API (CHAT_BASE_URL): the upstream's, through this proxy. */
  baseUrl: string;
  /** Every call so far, in the order they ended. */
  readonly calls: ProxiedCall[];
  /** The label given to the calls that start from now on. */
  label: string;
  close(): Promise<void>;
}

/** Request headers not forwarded as they are: the connection's own, and those the forwarded body sets again. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'accept-encoding',
]);

/** Characters of each reply kept in the record. */
const CONTENT_CHARS = 2000;

const readBody = (req: http.IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

const parse = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Starts the proxy on a free loopback port in front of `upstream` (a base URL such as `http://127.0.0.1:8003/v1`). */
export async function startChatProxy(upstream: string): Promise<ChatProxy> {
  const base = upstream.replace(/\/+$/, '');
  const calls: ProxiedCall[] = [];
  const proxy = { label: '' };
  const server = http.createServer((req, res) => {
    void (async () => {
      const started = performance.now();
      const label = proxy.label;
      const path = (req.url ?? '/').replace(/^\/proxy/, '');
      const body = await readBody(req);
      const request = req.method === 'POST' ? parse(body.toString('utf8')) : undefined;
      const call: ProxiedCall = {
        label,
        path,
        schema: request?.response_format?.json_schema?.name,
        maxTokens: request?.max_tokens ?? request?.max_completion_tokens,
        status: 0,
        ms: 0,
      };
      // The API gave up on the call (its timeout, its deadline): the server's work is abandoned too.
      const abort = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (!HOP_HEADERS.has(k) && typeof v === 'string') headers[k] = v;
      try {
        const up = await fetch(`${base}${path}`, {
          method: req.method,
          headers,
          body: req.method === 'GET' || req.method === 'HEAD' ? undefined : new Uint8Array(body),
          signal: abort.signal,
        });
        const text = await up.text();
        call.status = up.status;
        const reply = parse(text);
        if (reply && typeof reply === 'object') {
          call.model = reply.model;
          call.promptTokens = reply.usage?.prompt_tokens;
          call.completionTokens = reply.usage?.completion_tokens;
          call.finishReason = reply.choices?.[0]?.finish_reason;
          call.promptMs = reply.timings?.prompt_ms;
          call.predictedMs = reply.timings?.predicted_ms;
          const content = reply.choices?.[0]?.message?.content;
          if (typeof content === 'string') call.content = content.slice(0, CONTENT_CHARS);
        }
        res.writeHead(up.status, { 'Content-Type': up.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      } catch {
        if (!res.headersSent && !abort.signal.aborted) res.writeHead(502, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'the chat server could not be reached' } }));
      } finally {
        call.ms = performance.now() - started;
        calls.push(call);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/proxy`,
    calls,
    get label() {
      return proxy.label;
    },
    set label(value: string) {
      proxy.label = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
