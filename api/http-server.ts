/**
 * The HTTP server of the API. Node's parser refuses some requests before Koa sees them (headers or
 * URL over 16 KB, malformed request lines, unknown methods); those get the same error body as every
 * other error instead of Node's empty default.
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

function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
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

/** Listens on `host:port` and resolves once listening. */
export async function listen(app: Koa, port: number, host: string): Promise<Server> {
  const server = http.createServer(app.callback());
  server.on('clientError', answerClientError);
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return server;
}
