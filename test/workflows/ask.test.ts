/**
 * The ask workflow (workflows/ask.ts) on the time-skipping test server: its steps in order as
 * local activities, a session's turns read only for a follow-up, the answer stored before the
 * result, a model call's retries (each attempt in the history, the provider's Retry-After
 * honoured) and its timeout, and a history of a few events per ask.
 */
import assert from 'node:assert/strict';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { describe, it } from 'mocha';
import type { Activities } from '../../activities';
import type { AskQuestion } from '../../domain/ask/answer';
import type { ComposedAnswer, RankedSource } from '../../domain/ask/compose';
import { askWorkflow, type AskWorkflowInput } from '../../workflows/ask';
import { eventTimeMs, historyOf, withTestWorkers } from '../helpers/time-skipping';

type AskActivities = Pick<
  Activities,
  | 'readSessionTurns'
  | 'answerLocally'
  | 'rewriteFollowUp'
  | 'retrieveSources'
  | 'composeLocalAnswer'
  | 'composeModelAnswer'
  | 'storeAnswer'
>;

const source: RankedSource = {
  kind: 'article',
  id: 'reset',
  title: 'Password reset',
  url: 'https://help.example.com/reset',
  similarity: 0.9,
  titleSimilarity: 0.9,
  retrievalRank: 0,
  boost: 0,
  passages: ['Open Settings and choose Reset password.'],
  support: 0.9,
};
const composed: ComposedAnswer = {
  responseType: 'ai-answer-with-kb-links',
  parts: [{ text: 'Open Settings and choose Reset password.' }],
  used: [{ ...source, passages: [] }],
};

const question = (o: Partial<AskQuestion> = {}): AskQuestion => ({
  tenant: 't1',
  answerId: `a-${Math.random().toString(16).slice(2)}`,
  chatId: 'c1',
  question: 'How do I reset my password?',
  followUp: false,
  productIds: [],
  author: 'customer',
  now: 1_700_000_000_000,
  ...o,
});

/** The workflow's input, its deadline an hour ahead on the test server's clock (which skipping has moved past ours). */
const input = async (
  env: TestWorkflowEnvironment,
  o: Partial<AskWorkflowInput> & { question: AskQuestion },
): Promise<AskWorkflowInput> => ({
  engine: 'local',
  modelTimeoutMs: 1000,
  deadline: (await env.currentTimeMs()) + 3_600_000,
  ...o,
});

/** The ask activities over lists, recording each call by name; `model` overrides the model's compose. */
function recordingSteps(
  calls: string[],
  stored: unknown[],
  model?: AskActivities['composeModelAnswer'],
): AskActivities {
  const measured = <T>(value: T) => ({ value, ms: 1 });
  return {
    async readSessionTurns() {
      calls.push('readSessionTurns');
      return measured([
        {
          question: 'How do I reset my password?',
          standalone: 'How do I reset my password?',
          answer: 'Open Settings.',
          answerId: 'a0',
        },
      ]);
    },
    async rewriteFollowUp({ question: q }) {
      calls.push('rewriteFollowUp');
      return `${q} (standalone)`;
    },
    async answerLocally(i) {
      calls.push('answerLocally');
      const answer = {
        answerId: i.question.answerId,
        chatId: i.question.chatId,
        standalone: i.question.question,
        language: i.question.language ?? 'en',
        engine: 'local' as const,
        intentTag: null,
        answer: composed,
      };
      stored.push({ question: i.question, answer, history: i.history });
      return measured({ ...answer, timings: { embed: 1, retrieve: 2, compose: 1, store: 1 } });
    },
    async retrieveSources(i) {
      calls.push('retrieveSources');
      return measured({
        standalone: i.standalone ?? i.question,
        sources: [source],
        language: i.language ?? 'en',
        intentTag: null,
        timings: { embed: 1 },
      });
    },
    async composeLocalAnswer() {
      calls.push('composeLocalAnswer');
      return measured(composed);
    },
    composeModelAnswer:
      model ??
      (async () => {
        calls.push('composeModelAnswer');
        return measured(composed);
      }),
    async storeAnswer(i) {
      calls.push('storeAnswer');
      stored.push(i);
      return measured(undefined);
    },
  };
}

describe('askWorkflow (time-skipping)', () => {
  it('retrieves, composes and stores a first question with the local engine as one local activity, and returns the answer', async () => {
    const calls: string[] = [];
    const stored: unknown[] = [];
    const ended: unknown[] = [];
    const onAskEnded = (workflowId: string, result: unknown) => ended.push({ workflowId, result });
    await withTestWorkers(
      { activities: recordingSteps(calls, stored), onAskEnded },
      async ({ env, client, taskQueue }) => {
        const q = question();
        const workflowId = `ask:t1:${q.answerId}`;
        const result = await client.workflow.execute(askWorkflow, {
          taskQueue,
          workflowId,
          args: [await input(env, { question: q })],
        });
        // The same answer as the result (which, converted to JSON on the way, has no undefined timings).
        assert.deepEqual(
          JSON.parse(JSON.stringify(ended)),
          [{ workflowId, result }],
          'the worker running it heard the answer',
        );
        assert.deepEqual(calls, ['answerLocally']);
        assert.equal(result.answerId, q.answerId);
        assert.equal(result.answer.used[0].url, source.url);
        assert.deepEqual(stored, [
          {
            question: q,
            answer: {
              answerId: q.answerId,
              chatId: 'c1',
              standalone: q.question,
              language: 'en',
              engine: 'local',
              intentTag: null,
              answer: composed,
            },
            history: [],
          },
        ]);
        assert.deepEqual(result.timings, { embed: 1, retrieve: 2, compose: 1, store: 1 });
        const events = await historyOf({ env, workflowId });
        assert.equal(events.filter((e) => e.markerRecordedEventAttributes).length, 1, 'one marker, the local activity');
        assert.equal(
          events.filter((e) => e.activityTaskScheduledEventAttributes).length,
          0,
          'no activity task goes through the server',
        );
        assert.equal(
          events.length,
          6,
          'started, a workflow task scheduled, started and completed, the marker, completed',
        );
      },
    );
  });

  it("gives the local engine a follow-up's session turns, read first", async () => {
    const calls: string[] = [];
    const stored: { history: unknown[] }[] = [];
    await withTestWorkers(
      { activities: recordingSteps(calls, stored as unknown[]) },
      async ({ env, client, taskQueue }) => {
        const q = question({ followUp: true, question: 'And how long is it valid?' });
        const result = await client.workflow.execute(askWorkflow, {
          taskQueue,
          workflowId: `ask:t1:${q.answerId}`,
          args: [await input(env, { question: q })],
        });
        assert.deepEqual(calls, ['readSessionTurns', 'answerLocally']);
        assert.equal(stored[0].history.length, 1);
        assert.equal(result.timings.history, 1);
      },
    );
  });

  it('reads the session only for a follow-up, and has the model rewrite it when one answers', async () => {
    const calls: string[] = [];
    await withTestWorkers({ activities: recordingSteps(calls, []) }, async ({ env, client, taskQueue }) => {
      const q = question({ followUp: true, question: 'And how long is it valid?' });
      const result = await client.workflow.execute(askWorkflow, {
        taskQueue,
        workflowId: `ask:t1:${q.answerId}`,
        args: [await input(env, { question: q, engine: 'openai' })],
      });
      assert.deepEqual(calls, [
        'readSessionTurns',
        'rewriteFollowUp',
        'retrieveSources',
        'composeModelAnswer',
        'storeAnswer',
      ]);
      assert.equal(result.standalone, 'And how long is it valid? (standalone)');
      assert.equal(result.engine, 'openai');
    });
  });

  it("retries a failed model call after the provider's Retry-After, each attempt in the history", async () => {
    const calls: string[] = [];
    let attempt = 0;
    const flaky: AskActivities['composeModelAnswer'] = async () => {
      attempt += 1;
      if (attempt === 1)
        throw ApplicationFailure.create({
          type: 'DependencyUnavailable',
          message: 'the model service failed (status 429)',
          nextRetryDelay: '30s',
        });
      return { value: composed, ms: 1 };
    };
    await withTestWorkers({ activities: recordingSteps(calls, [], flaky) }, async ({ env, client, taskQueue }) => {
      const q = question();
      const workflowId = `ask:t1:${q.answerId}`;
      await client.workflow.execute(askWorkflow, {
        taskQueue,
        workflowId,
        args: [await input(env, { question: q, engine: 'openai' })],
      });
      const events = await historyOf({ env, workflowId });
      const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes);
      const started = events.find((e) => e.activityTaskStartedEventAttributes);
      assert.equal(started?.activityTaskStartedEventAttributes?.attempt, 2);
      // The second attempt waited for the provider's 30 s, not the policy's 2 s (in skipped time).
      assert.ok(
        eventTimeMs(started!) - eventTimeMs(scheduled!) >= 30_000,
        `${eventTimeMs(started!) - eventTimeMs(scheduled!)} ms`,
      );
    });
  });

  it("fails with the model call's timeout after its attempts (the API answers 504)", async () => {
    // It never answers; it only ends when the worker cancels it at shutdown.
    const stalled: AskActivities['composeModelAnswer'] = () =>
      new Promise((_, reject) =>
        Context.current().cancellationSignal.addEventListener('abort', () => reject(new Error('cancelled'))),
      );
    const ended: unknown[] = [];
    const onAskEnded = (workflowId: string, result: unknown) => ended.push({ workflowId, result });
    await withTestWorkers(
      { activities: recordingSteps([], [], stalled), onAskEnded },
      async ({ env, client, taskQueue }) => {
        const q = question();
        const workflowId = `ask:t1:${q.answerId}`;
        const run = client.workflow.execute(askWorkflow, {
          taskQueue,
          workflowId,
          args: [await input(env, { question: q, engine: 'openai' })],
        });
        await assert.rejects(run, (err: unknown) => {
          assert.ok(err instanceof WorkflowFailedError);
          assert.ok(err.cause instanceof ActivityFailure);
          assert.ok(err.cause.cause instanceof TimeoutFailure);
          return true;
        });
        assert.deepEqual(ended, [{ workflowId, result: undefined }], 'the worker running it heard that it failed');
      },
    );
  });

  it('composes with the local engine when the model fails for good and CHAT_FALLBACK=local, recording why', async () => {
    const calls: string[] = [];
    const stored: { answer: { engine: string; fallback?: { reason: string } } }[] = [];
    const unreadable: AskActivities['composeModelAnswer'] = async () => {
      calls.push('composeModelAnswer');
      throw ApplicationFailure.create({
        type: 'ModelOutputInvalid',
        message: 'the model service returned an answer that could not be read (cut at 512 tokens)',
        nonRetryable: true,
      });
    };
    await withTestWorkers(
      { activities: recordingSteps(calls, stored as unknown[], unreadable) },
      async ({ env, client, taskQueue }) => {
        const q = question();
        const result = await client.workflow.execute(askWorkflow, {
          taskQueue,
          workflowId: `ask:t1:${q.answerId}`,
          args: [await input(env, { question: q, engine: 'openai', fallback: 'local' })],
        });
        assert.deepEqual(calls, ['retrieveSources', 'composeModelAnswer', 'composeLocalAnswer', 'storeAnswer']);
        assert.equal(result.engine, 'local');
        assert.match(result.fallback!.reason, /cut at 512 tokens/);
        assert.deepEqual(stored[0].answer.fallback, result.fallback);
        assert.equal(stored[0].answer.engine, 'local');
      },
    );
  });

  it('ends a stalled model 3 s before the deadline and answers locally in time, after a failed rewrite too', async () => {
    const calls: string[] = [];
    const stalled: AskActivities['composeModelAnswer'] = () =>
      new Promise((_, reject) =>
        Context.current().cancellationSignal.addEventListener('abort', () => reject(new Error('cancelled'))),
      );
    const steps = {
      ...recordingSteps(calls, [], stalled),
      rewriteFollowUp: stalled as unknown as AskActivities['rewriteFollowUp'],
    };
    await withTestWorkers({ activities: steps }, async ({ env, client, taskQueue }) => {
      const q = question({ followUp: true, question: 'And how long is it valid?' });
      const deadline = (await env.currentTimeMs()) + 20_000;
      const workflowId = `ask:t1:${q.answerId}`;
      const result = await client.workflow.execute(askWorkflow, {
        taskQueue,
        workflowId,
        args: [await input(env, { question: q, engine: 'openai', fallback: 'local', deadline })],
      });
      // No composition by the model after its rewrite failed: the rest of the ask is local.
      assert.deepEqual(calls, ['readSessionTurns', 'retrieveSources', 'composeLocalAnswer', 'storeAnswer']);
      assert.equal(result.engine, 'local');
      assert.ok(result.fallback);
      const events = await historyOf({ env, workflowId });
      const completed = events.find((e) => e.workflowExecutionCompletedEventAttributes)!;
      assert.ok(
        eventTimeMs(completed) <= deadline - 3000 + 1000,
        'answered before the deadline, with the reserve left',
      );
    });
  });

  it('fails as before with CHAT_FALLBACK=none', async () => {
    const failing: AskActivities['composeModelAnswer'] = async () => {
      throw ApplicationFailure.create({ type: 'DependencyUnavailable', message: 'down', nonRetryable: true });
    };
    await withTestWorkers({ activities: recordingSteps([], [], failing) }, async ({ env, client, taskQueue }) => {
      const q = question();
      await assert.rejects(
        client.workflow.execute(askWorkflow, {
          taskQueue,
          workflowId: `ask:t1:${q.answerId}`,
          args: [await input(env, { question: q, engine: 'openai', fallback: 'none' })],
        }),
        WorkflowFailedError,
      );
    });
  });
});
