/**
 * Reading a request's JSON body. It runs inside an operation's guard (api/routes/guard.ts), after
 * the key, its scope and its rate limit were checked: a request that is refused there never has
 * its body read (Node discards it as it arrives, and the HTTP server's receive timeout bounds how
 * long: api/http-server.ts).
 */
import type { Context, Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import getRawBody from 'raw-body';
import { jsonValue, utf8Text } from '../../domain/contracts/json-body';
import { ApiError, badRequest, bodyStep, payloadTooLarge, unsupportedMediaType } from '../errors';
import { nextTurn, stepped } from '../event-loop-steps';

/** Bodies larger than this, once decompressed, get 413 (docs/api.md). */
export const BODY_LIMIT = '10mb';
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * The media types read as JSON: `application/json` and every `+json` type
 * (`application/merge-patch+json`, `application/vnd.foo+json`). The body reader and the media-type
 * check of `validate` both ask this, so a type is either read as JSON or answered 415.
 */
export const JSON_MEDIA_TYPES = ['application/json', '+json'];

export const isJsonRequest = (ctx: Context): boolean => ctx.request.is(JSON_MEDIA_TYPES) !== false;

/** The body's bytes as sent, decompressed per its `Content-Encoding`; 415 for an unknown encoding. */
function decoded(req: IncomingMessage): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return req;
  const decompressor =
    encoding === 'gzip' || encoding === 'deflate'
      ? createUnzip()
      : encoding === 'br'
        ? createBrotliDecompress()
        : undefined;
  if (!decompressor) throw unsupportedMediaType('unsupported Content-Encoding; use gzip, deflate, br or identity');
  req.pipe(decompressor);
  // A request that ends early (aborted, timed out) ends the decompressor too, or its reader would wait
  // for ever. Not the other way round: bytes that do not decompress must not close the connection
  // before the 400 is sent.
  req.once('close', () => {
    if (!req.complete) decompressor.destroy(Object.assign(new Error('request aborted'), { type: 'request.aborted' }));
  });
  return decompressor;
}

/** What a failure of reading the bytes means for the client: 413, 400, or not the client's fault. */
function readFailure(err: unknown, compressed: boolean): ApiError | unknown {
  const { status, type } = err as { status?: number; type?: string };
  if (status === 413) return payloadTooLarge('request body exceeds the limit of 10 MB');
  if (type === 'request.aborted') return badRequest('the request body ended before it was complete');
  if (type === 'request.size.invalid') return badRequest('the request body does not have the length it announced');
  // The decompressor's errors carry no status: the bytes are not what their encoding says.
  if (compressed && status === undefined)
    return badRequest('request body could not be decoded with its Content-Encoding');
  return err;
}

/**
 * Bodies from this size on are, where the operation allows it (`offload`), left as bytes in
 * `ctx.state.rawBody` for one of the API's CPU threads to decode, parse and check
 * (domain/contracts/upload-reading.ts, read-body.ts): a 10 MB upload parsed on the event loop held it 35 to 70 ms,
 * and the garbage of its parsed items as long again (docs/api.md, "Request pipeline").
 */
export const OFFLOADED_BODY_BYTES = 1024 * 1024;

/**
 * Reads a JSON body into `ctx.request.body` (at most 10 MB decompressed: 413 above; invalid UTF-8
 * or JSON: 400; an unknown `Content-Encoding`: 415). A body of another media type is not read:
 * `validate` answers it 415. With `offload`, a body of OFFLOADED_BODY_BYTES or more is left as its
 * bytes in `ctx.state.rawBody`, for the handler to read on a CPU thread.
 */
export function jsonBody(o: { offload?: boolean } = {}): Middleware {
  return async function jsonBodyMiddleware(ctx, next) {
    if (isJsonRequest(ctx)) {
      const req = ctx.req;
      const stream = decoded(req);
      const compressed = stream !== req;
      const length = compressed ? undefined : req.headers['content-length'];
      const bytes = await getRawBody(stream, { limit: BODY_LIMIT_BYTES, length }).catch((err) => {
        // What is left of a body refused half-way is discarded as it arrives (bounded by the receive
        // timeout), so the connection stays in step for the answer and any next request on it.
        req.unpipe();
        req.resume();
        throw readFailure(err, compressed);
      });
      ctx.state.bodyBytes = bytes.length;
      if (o.offload && bytes.length >= OFFLOADED_BODY_BYTES) {
        ctx.state.rawBody = bytes;
        return next();
      }
      const large = stepped(ctx.state);
      const text = bodyStep(() => utf8Text(bytes));
      if (large) await nextTurn();
      (ctx.request as { body?: unknown }).body = bodyStep(() => jsonValue(text));
      if (large) await nextTurn();
    }
    await next();
  };
}
