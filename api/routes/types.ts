/** What every route module receives. */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { RouteDeps } from '../app-deps';

export type RouterDeps = RouteDeps & {
  rateLimiter: Middleware;
  searchAdmission: Middleware;
  askAdmission: Middleware;
  /** The tenants' daily budget of model tokens, when one is set and a model answers. */
  modelBudget?: Middleware;
};

export type RouteModule = (router: Router, deps: RouterDeps) => void;
