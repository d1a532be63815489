/**
 * One chat session of ask: `ask-session:<tenant>:<chatId>` (search attributes TenantId,
 * Operation "ask-session" and ChatId). The API computes each answer on its read path; a session's
 * first turn goes to the tenant's answer log (workflows/answer-log.ts), and each later one comes
 * here with signal-with-start, which starts the session with the turns read before (the first
 * one among them); once Temporal has the signal, the answer is not lost. The session keeps its
 * last turns for follow-up questions (the API reads them with `askTurnsQuery`), stores the answers
 * it receives in Weaviate for feedback (activity `storeAnswers`), and ends after `SESSION.idleMs`
 * without a turn. A long session continues as new every `SESSION.turnsPerRun` turns, carrying its
 * recent turns, so its history stays small.
 */
import { condition, continueAsNew, defineQuery, defineSignal, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import type { Turn } from '../domain/ask/follow-up';
import type { AnswerRecord } from '../domain/weaviate/answers';
import { storePending } from './answer-log';

export const SESSION = {
  idleMs: 30 * 60_000,
  /** Turns kept as context. */
  keepTurns: 10,
  turnsPerRun: 100,
  /** Characters of an answer kept as context. */
  answerChars: 1000,
  /** Answers stored per activity. */
  storeBatch: 20,
};

export interface AskSessionInput {
  tenant: string;
  chatId: string;
  /** Turns carried over from the previous run (continue-as-new). */
  turns?: Turn[];
  /** Turns of the whole session so far. */
  turnCount?: number;
}

/** A stored answer as the context of the next question: its answer text shortened. */
export const turnOf = (record: AnswerRecord): Turn => ({
  question: record.question,
  standalone: record.standalone,
  answer: record.answer.slice(0, SESSION.answerChars),
  answerId: record.answerId,
});

export const askTurnSignal = defineSignal<[AnswerRecord]>('askTurn');
export const askTurnsQuery = defineQuery<Turn[]>('askTurns');

export async function askSessionWorkflow(input: AskSessionInput): Promise<{ turns: number }> {
  const turns = [...(input.turns ?? [])];
  const pending: AnswerRecord[] = [];
  let total = input.turnCount ?? 0;
  let thisRun = 0;
  setHandler(askTurnSignal, (record) => {
    pending.push(record);
    turns.push(turnOf(record));
    turns.splice(0, Math.max(0, turns.length - SESSION.keepTurns));
    total += 1;
    thisRun += 1;
  });
  setHandler(askTurnsQuery, () => turns);

  while (await condition(() => pending.length > 0, SESSION.idleMs)) {
    await storePending({ tenant: input.tenant, pending, batch: SESSION.storeBatch });
    upsertMemo({ turns: total, lastTurnAt: new Date().toISOString() });
    if (pending.length === 0 && (thisRun >= SESSION.turnsPerRun || workflowInfo().continueAsNewSuggested)) {
      await continueAsNew<typeof askSessionWorkflow>({ tenant: input.tenant, chatId: input.chatId, turns, turnCount: total });
    }
  }
  return { turns: total };
}
