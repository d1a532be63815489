/**
 * The answer log of a tenant: `answers:<tenant>` (search attributes TenantId and Operation
 * "answers"). It takes the first turn of every chat session: an ask without Chat-Identifier opens a
 * session, and most sessions never get a second question, so starting a workflow for each would
 * make Temporal's work per question larger than the answer's own. The API sends first turns here
 * with signal-with-start, several per signal when questions arrive together; once Temporal has the
 * signal, the answer is not lost. The log stores them in Weaviate in batches (activity
 * `storeAnswers`, retried for about an hour), and answers `unstoredAnswersQuery` with the turns of
 * one session it has not stored yet, so that a follow-up sent at once still finds its first turn.
 * A session's workflow (workflows/ask-session.ts) starts with its second turn.
 *
 * It ends after `ANSWER_LOG.idleMs` without an answer and continues as new every
 * `ANSWER_LOG.signalsPerRun` signals, carrying what it has not stored, so its history stays small.
 */
import { condition, continueAsNew, defineQuery, defineSignal, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AnswerRecord } from '../domain/weaviate/answers';
import { sessionStore } from './proxies';

export const ANSWER_LOG = {
  idleMs: 60 * 60_000,
  signalsPerRun: 1000,
  /** Answers stored per activity. */
  storeBatch: 100,
};

export interface AnswerLogInput {
  tenant: string;
  /** Answers received by the previous run and not stored yet (continue-as-new). */
  pending?: AnswerRecord[];
  /** Answers stored by earlier runs. */
  stored?: number;
}

export const answersSignal = defineSignal<[AnswerRecord[]]>('answers');
/** The answers of one chat session (by Chat-Identifier) that are not stored yet, oldest first. */
export const unstoredAnswersQuery = defineQuery<AnswerRecord[], [string]>('unstoredAnswers');

/**
 * Stores `pending` answers in batches of `batch`, each batch leaving the list once stored (so a
 * query still sees an answer while it is being stored). Returns how many were stored.
 */
export async function storePending(o: { tenant: string; pending: AnswerRecord[]; batch: number }): Promise<number> {
  let stored = 0;
  while (o.pending.length > 0) {
    const answers = o.pending.slice(0, o.batch);
    await sessionStore.storeAnswers({ tenant: o.tenant, answers });
    o.pending.splice(0, answers.length);
    stored += answers.length;
  }
  return stored;
}

export async function answerLogWorkflow(input: AnswerLogInput): Promise<{ stored: number }> {
  // An answer leaves `pending` once stored, so the query sees it in one place or the other.
  const pending = [...(input.pending ?? [])];
  let stored = input.stored ?? 0;
  let signals = 0;
  setHandler(answersSignal, (records) => {
    pending.push(...records);
    signals += 1;
  });
  setHandler(unstoredAnswersQuery, (chatId) => pending.filter((a) => a.chatId === chatId));

  while (await condition(() => pending.length > 0, ANSWER_LOG.idleMs)) {
    stored += await storePending({ tenant: input.tenant, pending, batch: ANSWER_LOG.storeBatch });
    if (signals >= ANSWER_LOG.signalsPerRun || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof answerLogWorkflow>({ tenant: input.tenant, pending, stored });
    }
  }
  return { stored };
}
