/**
 * The HTTP server of the API. Node's parser refuses some requests before Koa sees them (headers or
 * URL over 16 KB, malformed request lines, unknown methods); those get the same error body as every
 * other error instead of Node's empty default.
 *
 * A request must arrive whole, headers and body, within the receive timeout
 * (`REQUEST_RECEIVE_TIMEOUT_MS`, default 30 s; its headers within 10 s): a slower one gets 408 and
 * its connection is closed. This also bounds how long the body of a request answered before it
 * was read (401, 403, 429: the guard reads a body only after the key) is discarded as it arrives.
 */
import http, { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { errorBody, type ErrorStatus } from './errors';

/** The status and message for a request Node's HTTP parser refused. */
function parserRefusal(code: string | undefined): { status: ErrorStatus; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'the request line and headers exceed 16 KB' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'the request was not received in time' };
  return { status: 400, message: 'malformed HTTP request' };
}

/** How long a request may take to arrive, headers and body (`REQUEST_RECEIVE_TIMEOUT_MS`). */
export const DEFAULT_RECEIVE_TIMEOUT_MS = 30_000;
/** How long its headers may take, at most (never more than the whole request). */
const HEADERS_TIMEOUT_MS = 10_000;

/** Connections whose current request was answered before its body had arrived (the body is being discarded). */
const answeredBeforeBody = new WeakSet<Duplex>();

/** A response (or its headers) already went out on the connection: another one would corrupt it. */
function answered(socket: Duplex): boolean {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  return answeredBeforeBody.has(socket) || inFlight?.headersSent === true;
}

function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable || answered(socket)) {
    socket.destroy();
    return;
  }
  const { status, message } = parserRefusal(err.code);
  const body = JSON.stringify(errorBody(status, message));
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'X-Content-Type-Options: nosniff',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

export interface ListenOptions {
  port: number;
  host: string;
  /** How long a request may take to arrive, headers and body, in ms (default 30 s). */
  receiveTimeoutMs?: number;
}

/** Listens on `host:port` and resolves once listening. */
export async function listen(app: Koa, o: ListenOptions): Promise<Server> {
  const receiveTimeoutMs = o.receiveTimeoutMs ?? DEFAULT_RECEIVE_TIMEOUT_MS;
  const handle = app.callback();
  const server = http.createServer(
    {
      requestTimeout: receiveTimeoutMs,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, receiveTimeoutMs),
      // Node looks for requests past these timeouts every this often (by default only every 30 s).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(receiveTimeoutMs / 4))),
    },
    (req, res) => {
      res.once('finish', () => {
        if (req.complete) return;
        answeredBeforeBody.add(req.socket);
        req.once('end', () => answeredBeforeBody.delete(req.socket));
      });
      void handle(req, res);
    },
  );
  server.on('clientError', answerClientError);
  server.listen(o.port, o.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return server;
}
