/**
 * What the middlewares put in `ctx.state`, typed: what every request carries (request-context.ts), what a
 * guarded operation adds (routes/guard.ts: the key's grant, the deadline, the validated input), and the context of
 * an operation's handler, whose input has the types of the operation's schemas (`OperationContext<'ask'>`). Koa
 * types `ctx.state` as `any`; handlers name their operation here instead of casting what they read.
 */
import type { Middleware, ParameterizedContext } from 'koa';
import type { AskRequest } from '../domain/contracts/ask';
import type { EvaluateRequest } from '../domain/contracts/evaluation';
import type { FeedbackRequest } from '../domain/contracts/feedback';
import type { IncidentUpload } from '../domain/contracts/incident';
import type { SearchArticlesQuery, SearchCasesRequest } from '../domain/contracts/search';
import type { SentimentRequest } from '../domain/contracts/sentiment';
import type { SummaryRequest } from '../domain/contracts/summary';
import type { TagRequest } from '../domain/contracts/tag';
import type { ApiError } from './errors';
import type { Logger } from './logger';
import type { ValidatedInput } from './middlewares/validate';
import type { OperationId } from './schemas/operations';

/** What a verified key grants; handlers take the tenant from here, never from the request body. */
export interface AuthState {
  keyId: string;
  tenant: string;
  scopes: string[];
}

/** Every request's state; the fields a guard sets are there once it ran them (OperationState). */
export interface RequestState {
  /** request-context.ts: the request's id, and a logger that names it. */
  requestId: string;
  log: Logger;
  /** The message of a client error, for the request's log line (error-handler.ts). */
  errorMessage?: string;
  /** Why a 408, 429 or 503 refused the request, for the metrics (error-handler.ts, request-metrics.ts). */
  rejection?: ApiError['rejection'];
  /** The verified key (middlewares/auth.ts). */
  auth?: AuthState;
  /** The request's deadline, epoch ms (middlewares/deadline.ts). */
  deadline?: number;
  /** Bytes of the request body as read (middlewares/body.ts); a large one is worked through in steps. */
  bodyBytes?: number;
  /** A large body as bytes (an upload, a summary, a sentiment, a tag), for its handler to read on a CPU thread (middlewares/body.ts, offload). */
  rawBody?: Buffer;
  /** Gives back a search's place in its admission queue before the chain ends (fair-admission.ts). */
  releaseAdmission?: () => void;
}

/** The state once the key is verified: what the rate limit, the token budget and admission read. */
export type AuthenticatedState = RequestState & { auth: AuthState };

/** A batch upload's body as `validate()` leaves it: only the envelope is checked, each item by the handler. */
export type UploadEnvelope = Record<string, Record<string, unknown>[]>;

/**
 * Per operation, what `validate()` puts in `ctx.state.input`: the types of its body and query schemas, from
 * `domain/contracts/` (the schemas the operations table names). An operation without a body or query has
 * `undefined` there.
 */
type Inputs<T extends Record<OperationId, { body?: unknown; query?: unknown }>> = T;
export type OperationInputs = Inputs<{
  ask: { body: AskRequest };
  summarize: { body: SummaryRequest };
  sendFeedback: { body: FeedbackRequest };
  tagConversation: { body: TagRequest };
  analyzeSentiment: { body: SentimentRequest };
  uploadArticles: { body: UploadEnvelope };
  deleteArticles: { body: UploadEnvelope };
  uploadCases: { body: UploadEnvelope };
  uploadIncident: { body: IncidentUpload };
  searchCases: { body: SearchCasesRequest };
  searchArticles: { query: SearchArticlesQuery };
  evaluate: { body: EvaluateRequest };
}>;

/** The validated body and query of operation `Id`. */
export type OperationInput<Id extends OperationId> = ValidatedInput<
  OperationInputs[Id] extends { body: infer B } ? B : undefined,
  OperationInputs[Id] extends { query: infer Q } ? Q : undefined
>;

/** The state of operation `Id` once its guard let the request through (routes/guard.ts). */
export type OperationState<Id extends OperationId> = AuthenticatedState & {
  deadline: number;
  input: OperationInput<Id>;
};

/** The Koa context of operation `Id`'s handler. */
export type OperationContext<Id extends OperationId> = ParameterizedContext<OperationState<Id>>;

/** A middleware of operation `Id`, after its guard. */
export type OperationMiddleware<Id extends OperationId> = Middleware<OperationState<Id>>;
