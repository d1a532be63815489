/**
 * The API's side of chat sessions (workflows/ask-session.ts): reading a session's recent turns
 * for a follow-up, and handing it a finished turn with signal-with-start. The session id is only
 * part of the workflow id, after the tenant: the same Chat-Identifier sent by two tenants names
 * two separate sessions.
 */
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import type { Turn } from '../activities/ask/follow-up';
import type { AnswerRecord } from '../activities/weaviate/answers';
import { askSessionWorkflow, askTurnSignal, askTurnsQuery } from '../workflows/ask-session';
import { OPERATIONS } from '../workflows/constants';
import type { Logger } from './logger';
import { temporalErrorToApiError } from './temporal-errors';
import { OperationAttr, TenantId } from './workflow-runner';

export const ChatIdAttr = defineSearchAttributeKey('ChatId', SearchAttributeType.KEYWORD);

/** How long reading a session's turns may take before the question is answered without them. */
const HISTORY_TIMEOUT_MS = 3000;

export class AskSessions {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly logger?: Logger,
  ) {}

  private workflowId = (tenant: string, chatId: string) => `${OPERATIONS.askSession}:${tenant}:${chatId}`;

  /**
   * The session's recent turns, oldest first; none for a session that does not exist. A session
   * that cannot be read in time (no worker, say) answers none: the question is then answered as a
   * first question rather than not at all.
   */
  async history(tenant: string, chatId: string): Promise<Turn[]> {
    const handle = this.client.workflow.getHandle(this.workflowId(tenant, chatId));
    try {
      return await this.client.withAbortSignal(AbortSignal.timeout(HISTORY_TIMEOUT_MS), () => handle.query(askTurnsQuery));
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) this.logger?.warn({ err, chatId }, 'chat session history not readable; answering without it');
      return [];
    }
  }

  /** Hands a finished turn to its session, starting the session with it when needed. */
  async record(o: { tenant: string; chatId: string; history: Turn[]; answer: AnswerRecord; requestId?: string }): Promise<void> {
    try {
      await this.client.workflow.signalWithStart(askSessionWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: this.workflowId(o.tenant, o.chatId),
        // Used only when the session starts: a session that had ended goes on with the turns read.
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
}
