import type { Middleware } from 'koa';
import type { TokenMeter } from '../../domain/models/token-meter';
import { tooManyRequests } from '../errors';
import type { AuthenticatedState } from '../request-state';

const DAY_MS = 86_400_000;

/**
 * The per-tenant daily budget of chat-model tokens (CHAT_TOKENS_PER_DAY): once the tenant's
 * prompt and completion tokens of the UTC day reach it, counted across every process
 * (domain/models/token-meter.ts), its requests to the model's endpoints get 429 with Retry-After
 * until 00:00 UTC. The calls in flight when the budget runs out still finish, and the other
 * processes' calls are seen one sync interval late: a day may end a few calls over the budget.
 */
export function tokenBudget(o: {
  meter: Pick<TokenMeter, 'spentToday'>;
  tokensPerDay: number;
  now?: () => number;
}): Middleware<AuthenticatedState> {
  const now = o.now ?? Date.now;
  return async function tokenBudgetMiddleware(ctx, next) {
    const { tenant } = ctx.state.auth;
    const spent = o.meter.spentToday(tenant);
    if (spent >= o.tokensPerDay) {
      const t = now();
      const retryAfter = Math.max(1, Math.ceil((DAY_MS - (t % DAY_MS)) / 1000));
      throw tooManyRequests(
        retryAfter,
        `this tenant's chat-model budget of ${o.tokensPerDay} tokens a day is spent (${spent} today, UTC); it renews at 00:00 UTC`,
      ).because('token_budget');
    }
    await next();
  };
}
