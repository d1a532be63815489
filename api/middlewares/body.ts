import type { Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { badRequest } from '../errors';

/** Bodies larger than this get 413 (docs/api.md). */
export const BODY_LIMIT = '10mb';

/**
 * Parses JSON bodies (other media types are left unparsed; `validate` answers them 415). A
 * failure of the parser that carries no HTTP status comes from decompression, such as a body sent
 * with `Content-Encoding: gzip` that is not gzip: that is the client's error, answered 400.
 */
export function jsonBody(): Middleware {
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: BODY_LIMIT, strict: true });
  return async function jsonBodyMiddleware(ctx, next) {
    let parsed = false;
    try {
      await parse(ctx, () => {
        parsed = true;
        return next();
      });
    } catch (err) {
      const undecodable =
        !parsed && (err as { status?: unknown }).status === undefined && ctx.get('Content-Encoding') !== '';
      if (undecodable) throw badRequest('request body could not be decoded with its Content-Encoding');
      throw err;
    }
  };
}
