/**
 * createApp(deps): the Koa application without listening, so tests and the server share it.
 */
import Koa from 'koa';
import { DEFAULT_LIMITS, type AppDeps } from './app-deps';
import { errorHandler } from './middlewares/error-handler';
import { allowedMethods } from './middlewares/methods';
import { authFailureLimit } from './middlewares/rate-limit';
import { SharedWindowCounter } from './rate-limiter';
import { requestContext } from './middlewares/request-context';
import { requestMetrics } from './middlewares/request-metrics';
import { requestTracing } from './middlewares/tracing';
import { createRouter } from './routes';

export function createApp(deps: AppDeps): Koa {
  // Behind a proxy, only the address the nearest proxy appended counts: a client can put anything before it.
  const app = new Koa({ proxy: deps.trustProxy ?? false, maxIpsCount: 1 });
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const rateCounter = deps.rateCounter ?? new SharedWindowCounter({ windowMs: 60_000 });
  const router = createRouter({
    runner: deps.runner,
    answered: deps.answered,
    prefetchQuery: deps.prefetchQuery,
    reads: deps.reads,
    chat: deps.chat,
    chatTimeoutMs: deps.chatTimeoutMs,
    chatFallback: deps.chatFallback,
    tokens: deps.tokens,
    useCases: deps.useCases,
    tagTraining: deps.tagTraining,
    cpu: deps.cpu,
    verifier: deps.verifier,
    readiness: deps.readiness,
    health: deps.health,
    limits,
    rateCounter,
  });
  // With tracing on, each request is a trace's root span, around everything, its log line included.
  const tracing = requestTracing();
  if (tracing) app.use(tracing);
  app.use(requestContext(deps.logger));
  app.use(requestMetrics());
  app.use(errorHandler());
  // No body is read here: the guard of each operation reads it once the key was checked (routes/guard.ts).
  app.use(authFailureLimit({ max: limits.authFailuresPerMinute, counter: rateCounter }));
  app.use(router.routes());
  app.use(allowedMethods(router));
  app.on('error', (err) => deps.logger.error({ err }, 'unhandled application error'));
  return app;
}
