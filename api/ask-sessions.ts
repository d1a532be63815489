/**
 * The API's side of chat sessions: reading a session's recent turns for a follow-up, and handing a
 * finished turn to Temporal. A session's first turn goes to the tenant's answer log
 * (workflows/answer-log.ts), batched with the first turns of other questions answered at the same
 * moment; later turns go to the session's own workflow (workflows/ask-session.ts) with
 * signal-with-start. The session id is only part of a workflow id, after the tenant: the same
 * Chat-Identifier sent by two tenants names two separate sessions.
 */
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import type { WeaviateClient } from 'weaviate-client';
import type { Turn } from '../domain/ask/follow-up';
import { sessionAnswers, type AnswerRecord } from '../domain/weaviate/answers';
import { answerLogWorkflow, answersSignal, unstoredAnswersQuery } from '../workflows/answer-log';
import { askSessionWorkflow, askTurnSignal, askTurnsQuery, SESSION, turnOf } from '../workflows/ask-session';
import { OPERATIONS } from '../workflows/constants';
import type { Logger } from './logger';
import { temporalErrorToApiError } from './temporal-errors';
import { OperationAttr, TenantId } from './workflow-runner';

export const ChatIdAttr = defineSearchAttributeKey('ChatId', SearchAttributeType.KEYWORD);

/** How long reading a session's turns may take before the question is answered without them. */
const HISTORY_TIMEOUT_MS = 3000;
/** First turns per signal to the answer log (an answer record is a few KB at most). */
const ANSWERS_PER_SIGNAL = 50;

interface Waiting {
  answer: AnswerRecord;
  done: (err?: unknown) => void;
}

export interface AskSessionsOptions {
  client: Client;
  taskQueue: string;
  /** Where the answer log stores first turns (read back for a follow-up). */
  weaviate: () => Promise<WeaviateClient>;
  logger?: Logger;
}

export class AskSessions {
  /** Per tenant: first turns waiting for the signal in flight to return. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(private readonly o: AskSessionsOptions) {}

  private sessionId = (tenant: string, chatId: string) => `${OPERATIONS.askSession}:${tenant}:${chatId}`;
  private logId = (tenant: string) => `${OPERATIONS.answerLog}:${tenant}`;

  /**
   * The session's recent turns, oldest first; none for a session that does not exist. A session
   * that cannot be read in time (no worker, say) answers none: the question is then answered as a
   * first question rather than not at all.
   */
  async history(tenant: string, chatId: string): Promise<Turn[]> {
    try {
      return await this.o.client.withAbortSignal(AbortSignal.timeout(HISTORY_TIMEOUT_MS), async () => {
        try {
          return await this.o.client.workflow.getHandle(this.sessionId(tenant, chatId)).query(askTurnsQuery);
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
          return this.firstTurns(tenant, chatId);
        }
      });
    } catch (err) {
      this.o.logger?.warn({ err, chatId }, 'chat session history not readable; answering without it');
      return [];
    }
  }

  /**
   * The turns of a session that has no workflow yet: its first turn, in the answer log. The log is
   * asked first, then Weaviate: an answer the log stores in between is found by the second look.
   */
  private async firstTurns(tenant: string, chatId: string): Promise<Turn[]> {
    const unstored = await this.o.client.workflow
      .getHandle(this.logId(tenant))
      .query(unstoredAnswersQuery, chatId)
      .catch((err) => {
        if (err instanceof WorkflowNotFoundError) return [];
        throw err;
      });
    const stored = await sessionAnswers({ weaviate: this.o.weaviate }, { tenant, chatId, limit: SESSION.keepTurns });
    const byId = new Map([...stored, ...unstored].map((a) => [a.answerId, a]));
    return [...byId.values()]
      .sort((a, b) => a.createdAt - b.createdAt)
      .slice(-SESSION.keepTurns)
      .map(turnOf);
  }

  /**
   * Hands a finished turn to Temporal: a session's first turn to the tenant's answer log, a later
   * one to the session's workflow, started with the turns read when needed. Returns once Temporal
   * has it.
   */
  async record(o: { tenant: string; chatId: string; history: Turn[]; answer: AnswerRecord; requestId?: string }): Promise<void> {
    if (o.history.length === 0) return this.logFirstTurn(o.tenant, o.answer);
    try {
      await this.o.client.workflow.signalWithStart(askSessionWorkflow, {
        taskQueue: this.o.taskQueue,
        workflowId: this.sessionId(o.tenant, o.chatId),
        // Used only when the session starts: a session goes on with the turns read.
        args: [{ tenant: o.tenant, chatId: o.chatId, turns: o.history }],
        signal: askTurnSignal,
        signalArgs: [o.answer],
        memo: o.requestId ? { requestId: o.requestId } : undefined,
        typedSearchAttributes: [
          { key: TenantId, value: o.tenant },
          { key: OperationAttr, value: OPERATIONS.askSession },
          { key: ChatIdAttr, value: o.chatId },
        ],
      });
    } catch (err) {
      throw temporalErrorToApiError(err, OPERATIONS.ask);
    }
  }

  /**
   * One signal to the answer log at a time per tenant: first turns that finish while one is on its
   * way go together in the next, so a busy tenant sends fewer, larger signals.
   */
  private logFirstTurn(tenant: string, answer: AnswerRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (err?: unknown) => (err ? reject(err) : resolve());
      const queue = this.waiting.get(tenant);
      if (queue) return void queue.push({ answer, done });
      this.waiting.set(tenant, [{ answer, done }]);
      void this.sendFirstTurns(tenant);
    });
  }

  private async sendFirstTurns(tenant: string): Promise<void> {
    const queue = this.waiting.get(tenant)!;
    while (queue.length > 0) {
      const batch = queue.splice(0, ANSWERS_PER_SIGNAL);
      try {
        await this.o.client.workflow.signalWithStart(answerLogWorkflow, {
          taskQueue: this.o.taskQueue,
          workflowId: this.logId(tenant),
          args: [{ tenant }],
          signal: answersSignal,
          signalArgs: [batch.map((w) => w.answer)],
          typedSearchAttributes: [
            { key: TenantId, value: tenant },
            { key: OperationAttr, value: OPERATIONS.answerLog },
          ],
        });
        for (const w of batch) w.done();
      } catch (err) {
        const apiError = temporalErrorToApiError(err, OPERATIONS.ask);
        for (const w of batch) w.done(apiError);
      }
    }
    this.waiting.delete(tenant);
  }
}
