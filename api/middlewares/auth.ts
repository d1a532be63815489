import type { Context, Middleware } from 'koa';
import type { ApiKeyRecord } from '../../domain/weaviate/api-keys';
import { ApiError, badRequest, forbidden, requestTimeout, unauthenticated, unavailable } from '../errors';
import type { Scope } from '../scopes';
import type { DependencyHealth } from '../dependency-health';
import type { AuthenticatedState, RequestState } from '../request-state';

export interface KeyVerifier {
  verify(key: string): Promise<ApiKeyRecord | undefined>;
  businessTenant(businessId: string): Promise<string | undefined>;
}

/**
 * The key store as requests see it: while its store (Weaviate) is known down, a look-up answers
 * 503 at once instead of waiting for the store's client to give up (cached keys still work).
 */
export function failFastVerifier(store: KeyVerifier, health: DependencyHealth): KeyVerifier {
  const up = () => health.requireUp(['weaviate']);
  return {
    verify: async (key) => (up(), store.verify(key)),
    businessTenant: async (id) => (up(), store.businessTenant(id)),
  };
}

/** Caches key look-ups briefly: a revoked key stops working within `ttlMs` on every instance. */
export function cachedVerifier(store: KeyVerifier, ttlMs = 10_000): KeyVerifier {
  const keys = new Map<string, { at: number; value: Promise<ApiKeyRecord | undefined> }>();
  const businesses = new Map<string, { at: number; value: Promise<string | undefined> }>();
  function cached<T>(
    map: Map<string, { at: number; value: Promise<T> }>,
    k: string,
    load: () => Promise<T>,
  ): Promise<T> {
    const hit = map.get(k);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    if (map.size > 10_000) map.clear();
    const value = load();
    map.set(k, { at: Date.now(), value });
    value.catch(() => map.delete(k));
    return value;
  }
  return {
    verify: (key) => cached(keys, key, () => store.verify(key)),
    businessTenant: (id) => cached(businesses, id, () => store.businessTenant(id)),
  };
}

/** A failed look-up is a 503: the fail-fast store's own (with Retry-After), or ours; never the store's text. */
function keyStoreFailure(err: unknown): never {
  if (err instanceof ApiError && err.code === 503) throw err;
  throw unavailable('the key store is unavailable; try again shortly').because('dependency_unavailable', 'weaviate');
}

/** Rejects with 408 when `deadline` (epoch ms) passes before `lookup` answers. */
async function withinDeadline<T>(lookup: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(requestTimeout('the API key could not be checked before the request deadline')),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([lookup, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Authorization: Bearer <key> → ctx.state.auth, or 401. The look-up is bounded by the request's
 * deadline (`deadlineOf`): a key store that stops answering gives 408 at the deadline, never later.
 */
export function authenticate(verifier: KeyVerifier, deadlineOf: (ctx: Context) => number): Middleware<RequestState> {
  return async function authenticateMiddleware(ctx, next) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'));
    if (!match) throw unauthenticated('missing Authorization: Bearer <API key> header');
    const record = await withinDeadline(verifier.verify(match[1]).catch(keyStoreFailure), deadlineOf(ctx));
    if (!record) throw unauthenticated('invalid or revoked API key');
    ctx.state.auth = { keyId: record.keyId, tenant: record.tenant, scopes: record.scopes };
    await next();
  };
}

/** 403 unless the key carries the scope. */
export function requireScope(scope: Scope): Middleware<AuthenticatedState> {
  return async function requireScopeMiddleware(ctx, next) {
    const { auth } = ctx.state;
    if (!auth.scopes.includes(scope)) throw forbidden(`this API key lacks the scope "${scope}"`);
    await next();
  };
}

/** X-Business-Id must name a business of the key's tenant (its own name always does). */
export function requireBusiness(verifier: KeyVerifier): Middleware<AuthenticatedState & { deadline: number }> {
  return async function requireBusinessMiddleware(ctx, next) {
    const businessId = ctx.get('X-Business-Id').trim();
    if (!businessId) throw badRequest('header X-Business-Id is required');
    const { auth } = ctx.state;
    const owner =
      businessId === auth.tenant
        ? auth.tenant
        : await withinDeadline(verifier.businessTenant(businessId).catch(keyStoreFailure), ctx.state.deadline);
    if (owner !== auth.tenant) throw forbidden(`business ${businessId} does not belong to this API key's tenant`);
    await next();
  };
}
