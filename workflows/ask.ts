/**
 * One ask: `ask:<tenant>:<answerId>`, with search attributes TenantId, Operation "ask" and ChatId,
 * so an operator finds every question of a session by its Chat-Identifier in the Web UI. Its input
 * is the question as the API received it, its result the answer as the API presents it.
 *
 * The steps are activities (domain/ask/answer.ts): reading the session's earlier turns (only when
 * the request named a session), retrieval and composition with the local engine as local
 * activities, which run in the worker that runs this workflow and add no round trip to the
 * server; with a chat model, the model's calls (rewriting a follow-up, composing) as normal
 * activities, each attempt in the history, retried the way a rate-limited provider needs and
 * never past the request's deadline. The answer is stored before the workflow returns, so
 * feedback on it and the session's next question find it at once. An ask's history is about ten
 * events; namespace retention removes it with the execution.
 */
import {
  proxyActivities,
  proxyLocalActivities,
  proxySinks,
  type ActivityOptions,
  type LocalActivityOptions,
  type Sinks,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AskAnswer, AskQuestion, AskTimings, Engine } from '../domain/ask/answer';
import { NON_RETRYABLE } from './proxies';

export interface AskWorkflowInput {
  question: AskQuestion;
  /** The engine the API was configured with; the worker's chat gateway makes the calls. */
  engine: Engine;
  /** One model call's timeout (CHAT_TIMEOUT_MS). */
  modelTimeoutMs: number;
  /** The request's deadline, epoch ms: no model attempt is started after it. */
  deadline: number;
}

export interface AskWorkflowResult extends AskAnswer {
  /** Milliseconds per phase, measured by the activities. */
  timings: AskTimings;
}

/**
 * What the worker running an ask hears as the run ends: its answer, already stored, handed over as
 * the run's completion goes to the server. The API process's own ask worker uses it to answer the
 * request without waiting for the server to record the completion and report it back
 * (api/answered-asks.ts); any other worker ignores it.
 */
export interface AskSinks extends Sinks {
  asks: { answered(result: AskWorkflowResult): void };
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
  const options: ActivityOptions = {
    startToCloseTimeout: input.modelTimeoutMs + 5000,
    scheduleToCloseTimeout: Math.max(1000, input.deadline - Date.now()),
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

export async function askWorkflow(input: AskWorkflowInput): Promise<AskWorkflowResult> {
  const { question: q, engine } = input;
  const model = engine === 'openai';
  const history = q.followUp ? await steps.readSessionTurns({ tenant: q.tenant, chatId: q.chatId }) : undefined;
  const turns = history?.value ?? [];
  const standalone =
    model && turns.length > 0
      ? await modelCall(input).rewriteFollowUp({ question: q.question, history: turns })
      : undefined;
  const found = await steps.retrieveSources({ ...q, history: turns, standalone, engine });
  const { sources, language } = found.value;
  const composed = model
    ? await modelCall(input).composeModelAnswer({ question: q.question, history: turns, sources, language })
    : await steps.composeLocalAnswer({ standalone: found.value.standalone, sources, language });
  const { intentTag } = found.value;
  const result: AskAnswer = {
    answerId: q.answerId,
    chatId: q.chatId,
    standalone: found.value.standalone,
    language,
    engine,
    intentTag,
    answer: composed.value,
  };
  const stored = await steps.storeAnswer({ question: q, answer: result });
  const timings: AskTimings = {
    ...found.value.timings,
    history: history?.ms,
    retrieve: found.ms,
    [model ? 'model' : 'compose']: composed.ms,
    store: stored.ms,
  };
  asks.answered({ ...result, timings });
  return { ...result, timings };
}
