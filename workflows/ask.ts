/**
 * One ask: `ask:<tenant>:<answerId>`, with search attributes TenantId, Operation "ask" and ChatId,
 * so an operator finds every question of a session by its Chat-Identifier in the Web UI. Its input
 * is the question as the API received it, its result the answer as the API presents it.
 *
 * The steps are activities (domain/ask/answer.ts): reading the session's earlier turns (only when
 * the request named a session) and the local steps as local activities, which run in the worker
 * that runs this workflow and add no round trip to the server. With the local engine, retrieval,
 * the extract and storing are one local activity (`answerLocally`): each local activity costs the
 * ask an activation of the workflow, and the sources' passages stay out of the history. With a chat
 * model, retrieval and storing are local activities apart, and the model's calls (rewriting a
 * follow-up, composing) normal activities, each attempt in the history, retried the way a
 * rate-limited provider needs and never past the request's deadline. The answer is stored before
 * the workflow returns, so feedback on it and the session's next question find it at once. An
 * ask's history is 6 events with the local engine (7 with a session to read), about ten with a
 * model; namespace retention removes it with the execution.
 *
 * With `fallback: 'local'` (CHAT_FALLBACK), a model call that fails for good (down, rate-limited
 * past its retries, unreadable, out of time) is not the ask's failure: the rest of the ask is
 * local (a failed rewrite leaves the follow-up to the local rewrite, and the local engine composes
 * the answer), and the result says why (`fallback`), beside the failed activity in the history. The model's calls then
 * end FALLBACK_RESERVE_MS before the request's deadline, so the local engine has time to answer.
 */
import {
  ActivityFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  proxySinks,
  type ActivityOptions,
  type LocalActivityOptions,
  type Sinks,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AskAnswer, AskQuestion, AskTimings, Engine } from '../domain/ask/answer';
import { FALLBACK_RESERVE_MS } from './constants';
import { NON_RETRYABLE } from './proxies';

export interface AskWorkflowInput {
  question: AskQuestion;
  /** The engine the API was configured with; the worker's chat gateway makes the calls. */
  engine: Engine;
  /** One model call's timeout (CHAT_TIMEOUT_MS). */
  modelTimeoutMs: number;
  /** The request's deadline, epoch ms: no model attempt is started after it. */
  deadline: number;
  /** What answers when the model fails for good: the local engine, or nobody (the ask fails: 503/504). */
  fallback?: 'local' | 'none';
}

export interface AskWorkflowResult extends AskAnswer {
  /** Milliseconds per phase, measured by the activities. */
  timings: AskTimings;
}

/**
 * What the worker running an ask hears as the run ends: its answer, already stored, handed over as
 * the run's completion goes to the server, or that it is failing. The API process's own ask worker
 * uses them to answer the request without asking the server for the run's result
 * (api/ask-runtime/answered-asks.ts); any other worker ignores them.
 */
export interface AskSinks extends Sinks {
  asks: {
    answered(result: AskWorkflowResult): void;
    /** The run is failing; the server reports how. */
    failed(): void;
  };
}

const { asks } = proxySinks<AskSinks>();

/**
 * Retrieval, local composition and storage: an attempt may take 5 s, all attempts 12 s, three
 * attempts 500 ms then 1 s apart (the searches' policy, api/read-path.ts).
 */
const STEP: LocalActivityOptions = {
  startToCloseTimeout: '5s',
  scheduleToCloseTimeout: '12s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
};

const steps = proxyLocalActivities<Activities>(STEP);

/**
 * A model call: each attempt the model's own timeout plus a margin; three attempts, 2 s then 6 s
 * apart, or after the provider's Retry-After when it rate-limits (domain/failures.ts), and none
 * started once the request's deadline has passed. Made when the call is, so that its budget is
 * what is left of the request's.
 */
function modelCall(input: AskWorkflowInput) {
  const reserve = input.fallback === 'local' ? FALLBACK_RESERVE_MS : 0;
  const options: ActivityOptions = {
    startToCloseTimeout: input.modelTimeoutMs + 5000,
    scheduleToCloseTimeout: Math.max(1000, input.deadline - reserve - Date.now()),
    retry: {
      initialInterval: '2s',
      backoffCoefficient: 3,
      maximumInterval: '1 minute',
      maximumAttempts: 3,
      nonRetryableErrorTypes: NON_RETRYABLE,
    },
  };
  return proxyActivities<Activities>(options);
}

/**
 * The model's result, or undefined with `fallback.reason` set when it failed for good and the
 * local engine is to stand in (CHAT_FALLBACK=local). A cancelled ask stays cancelled.
 */
async function orFallback<R>(
  input: AskWorkflowInput,
  fallback: { reason?: string },
  call: () => Promise<R>,
): Promise<R | undefined> {
  try {
    return await call();
  } catch (err) {
    if (input.fallback !== 'local' || !(err instanceof ActivityFailure) || isCancellation(err)) throw err;
    fallback.reason ??= err.cause?.message ?? err.message;
    return undefined;
  }
}

/** One ask; the worker running it hears how it ends (AskSinks). */
export async function askWorkflow(input: AskWorkflowInput): Promise<AskWorkflowResult> {
  try {
    const result = await ask(input);
    asks.answered(result);
    return result;
  } catch (err) {
    asks.failed();
    throw err;
  }
}

async function ask(input: AskWorkflowInput): Promise<AskWorkflowResult> {
  const { question: q } = input;
  const history = q.followUp ? await steps.readSessionTurns({ tenant: q.tenant, chatId: q.chatId }) : undefined;
  const turns = history?.value ?? [];
  if (input.engine === 'local') {
    // The local engine: retrieval, the extract and storing as one step (domain/ask/answer.ts, answerLocally).
    const local = await steps.answerLocally({ question: q, history: turns });
    return { ...local.value, timings: { ...local.value.timings, history: history?.ms } };
  }
  const fallback: { reason?: string } = {};
  const standalone =
    turns.length > 0
      ? await orFallback(input, fallback, () =>
          modelCall(input).rewriteFollowUp({ question: q.question, history: turns, tenant: q.tenant }),
        )
      : undefined;
  const found = await steps.retrieveSources({ ...q, history: turns, standalone, engine: 'openai' });
  const { sources, language } = found.value;
  const composedByModel =
    fallback.reason === undefined
      ? await orFallback(input, fallback, () =>
          modelCall(input).composeModelAnswer({
            question: q.question,
            history: turns,
            sources,
            language,
            tenant: q.tenant,
          }),
        )
      : undefined;
  const composed =
    composedByModel ??
    (await steps.composeLocalAnswer({
      standalone: found.value.standalone,
      sources,
      language,
      chosenFor: 'openai',
    }));
  const { intentTag } = found.value;
  const result: AskAnswer = {
    answerId: q.answerId,
    chatId: q.chatId,
    standalone: found.value.standalone,
    language,
    engine: composedByModel ? 'openai' : 'local',
    intentTag,
    answer: composed.value,
    ...(fallback.reason === undefined ? {} : { fallback: { reason: fallback.reason } }),
  };
  const stored = await steps.storeAnswer({ question: q, answer: result });
  const timings: AskTimings = {
    ...found.value.timings,
    history: history?.ms,
    retrieve: found.ms,
    [composedByModel ? 'model' : 'compose']: composed.ms,
    store: stored.ms,
  };
  return { ...result, timings };
}
