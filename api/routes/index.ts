/**
 * The router: health and the OpenAPI document without authentication, then one module per
 * endpoint group under /v1.
 */
import Router from '@koa/router';
import type { RouteDeps } from '../app-deps';
import { FairQueue, fairAdmission } from '../middlewares/fair-admission';
import { rateLimit } from '../middlewares/rate-limit';
import { tokenBudget } from '../middlewares/token-budget';
import { buildOpenApiDocument } from '../schemas/openapi';
import { watchAdmissionQueue } from '../../domain/observability/metrics';
import { articlesRoutes } from './articles';
import { assistantRoutes } from './assistant';
import { evaluateRoutes } from './evaluate';
import { casesRoutes } from './cases';
import { conversationsRoutes } from './conversations';
import { incidentsRoutes } from './incidents';
import { searchRoutes } from './search';
import { sentimentRoutes } from './sentiment';
import { tagRoutes } from './tag';

export function createRouter(deps: RouteDeps): Router {
  const router = new Router();
  const openapi = buildOpenApiDocument();
  const searchQueue = new FairQueue(deps.limits.searchAdmission);
  const askQueue = new FairQueue(deps.limits.askAdmission);
  watchAdmissionQueue('search', () => searchQueue.queued());
  watchAdmissionQueue('ask', () => askQueue.queued());

  router.get('/healthz', function healthz(ctx) {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async function readyz(ctx) {
    const report = await deps.readiness();
    ctx.status = report.ready ? 200 : 503;
    ctx.body = report;
  });
  router.get('/openapi.json', function openapiDocument(ctx) {
    ctx.body = openapi;
  });

  const routeDeps = {
    ...deps,
    rateLimiter: rateLimit({ max: deps.limits.rateLimitPerMinute, counter: deps.rateCounter }),
    searchAdmission: fairAdmission(searchQueue),
    askAdmission: fairAdmission(askQueue),
    modelBudget:
      deps.tokens && deps.limits.tokensPerTenantPerDay && deps.chat.engine === 'openai'
        ? tokenBudget({ meter: deps.tokens, tokensPerDay: deps.limits.tokensPerTenantPerDay })
        : undefined,
  };
  for (const mount of [
    articlesRoutes,
    casesRoutes,
    incidentsRoutes,
    searchRoutes,
    assistantRoutes,
    conversationsRoutes,
    sentimentRoutes,
    tagRoutes,
    evaluateRoutes,
  ])
    mount(router, routeDeps);
  return router;
}
