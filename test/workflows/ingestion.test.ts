/**
 * The upload workflows (workflows/ingestion.ts) on the time-skipping test server: each runs its
 * activity on the ingestion task queue, an accepted upload outlives a store that is down for
 * minutes (its retries' back-off runs in skipped time), invalid input fails without retries, and
 * stored tagged cases start or signal the tenant's tag trainer.
 */
import assert from 'node:assert/strict';
import { activityInfo } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../../activities';
import type { Article } from '../../domain/contracts/article';
import type { Case } from '../../domain/contracts/case';
import type { IncidentUpload } from '../../domain/contracts/incident';
import type { ArticleSlice, ArticleSliceInput } from '../../domain/weaviate/ingest';
import { OPERATIONS, OperationAttr, TenantId, ingestionTaskQueue, tenantPriority } from '../../workflows/constants';
import {
  deleteArticlesWorkflow,
  upsertArticlesWorkflow,
  upsertCasesWorkflow,
  upsertIncidentWorkflow,
} from '../../workflows/ingestion';
import { tagTrainerId } from '../../workflows/tag-training';
import { article, incident, supportCase } from '../helpers/factories';
import { freshTenant } from '../helpers/harness';
import { eventTimeMs, historyOf, runChain, withTestWorkers, type TestWorkers } from '../helpers/time-skipping';

type IngestActivities = Pick<
  Activities,
  'upsertArticles' | 'deleteArticles' | 'upsertCases' | 'upsertIncident' | 'trainTags'
>;

/** What the test's store received, per activity call. */
interface Received {
  articles: string[][];
  deletedIds: string[][];
  cases: string[][];
}

/**
 * The upload activities over a list instead of Weaviate: they store nothing, but report every id
 * as stored, so the workflows' own logic (what they pass, when they signal) is what is tested.
 */
function recordingStore(received: Received): IngestActivities {
  return {
    async upsertArticles(input) {
      const articles = input.articles ?? [];
      received.articles.push(articles.map((a) => a.articleId));
      return { stored: articles.length, failed: [], completed: articles.map((a) => a.articleId) };
    },
    async deleteArticles(input) {
      received.deletedIds.push(input.articleIds);
      return { stored: input.articleIds.length, failed: [] };
    },
    async upsertCases(input) {
      received.cases.push(input.cases.map((c) => c.id));
      return { stored: input.cases.length, failed: [] };
    },
    async upsertIncident(input) {
      return { id: input.record.incident.id ?? 'no id' };
    },
    // The trainer that case uploads start may train while a test runs: it trains on nothing here.
    async trainTags() {
      return {
        taggedCases: 0,
        cases: 0,
        spamCases: 0,
        tags: 0,
        rareTags: 0,
        holdoutAccuracy: null,
        temperature: null,
        version: null,
        durationMs: 0,
      };
    },
  };
}

const emptyReceived = (): Received => ({ articles: [], deletedIds: [], cases: [] });

/** The task queue each activity of a run was scheduled on. */
async function activityQueues(w: TestWorkers, workflowId: string): Promise<string[]> {
  const events = await historyOf({ env: w.env, workflowId });
  return events.flatMap((e) => e.activityTaskScheduledEventAttributes?.taskQueue?.name ?? []);
}

describe('workflows: ingestion (time-skipping)', () => {
  it('stores articles on the ingestion task queue and returns what the activity stored', async () => {
    const received = emptyReceived();
    await withTestWorkers({ activities: recordingStore(received) }, async (w) => {
      const articles = [article(), article()] as Article[];
      const workflowId = `articles-upsert:${freshTenant()}`;
      const result = await w.client.workflow.execute(upsertArticlesWorkflow, {
        taskQueue: w.taskQueue,
        workflowId,
        args: [{ tenant: 'acme', articles }],
      });
      assert.deepEqual(result, { stored: 2, failed: [] });
      assert.deepEqual(received.articles, [articles.map((a) => a.articleId)]);
      assert.deepEqual(await activityQueues(w, workflowId), [ingestionTaskQueue(w.taskQueue)]);
    });
  });

  it('stores a large upload in slices: each a new activity, the later ones carrying only where to resume', async () => {
    const inputs: ArticleSliceInput[] = [];
    const articles = [article(), article(), article()] as Article[];
    const [a, b, c] = articles.map((x) => x.articleId);
    // Three slices: a and b done in the first, c failing in the second (by itself), b failing late in the third.
    const slices: ArticleSlice[] = [
      { stored: 1, failed: [], completed: [a], next: { article: 1, passage: 3 } },
      {
        stored: 1,
        failed: [{ id: c, error: '/body has no text after conversion' }],
        completed: [b],
        next: { article: 2, passage: 0 },
      },
      { stored: 0, failed: [{ id: b, error: 'a passage was refused' }], completed: [] },
    ];
    const store: Pick<Activities, 'upsertArticles'> = {
      async upsertArticles(input) {
        inputs.push(input);
        return slices[inputs.length - 1];
      },
    };
    await withTestWorkers({ activities: store }, async (w) => {
      const workflowId = `articles-upsert:${freshTenant()}`;
      const result = await w.client.workflow.execute(upsertArticlesWorkflow, {
        taskQueue: w.taskQueue,
        workflowId,
        args: [{ tenant: 'acme', articles }],
      });
      assert.deepEqual(result, {
        stored: 1,
        failed: [
          { id: c, error: '/body has no text after conversion' },
          { id: b, error: 'a passage was refused' },
        ],
      });
      assert.deepEqual(inputs, [
        { tenant: 'acme', articles },
        { tenant: 'acme', from: { article: 1, passage: 3 } },
        { tenant: 'acme', from: { article: 2, passage: 0 } },
      ]);
      // Each slice went back through the ingestion queue, so a free slot can go to another tenant in between.
      assert.deepEqual(await activityQueues(w, workflowId), Array(3).fill(ingestionTaskQueue(w.taskQueue)));
    });
  });

  it("schedules every activity under its tenant as fairness key: the run's own, or its TenantId", async () => {
    const received = emptyReceived();
    await withTestWorkers({ activities: recordingStore(received) }, async (w) => {
      const tenant = freshTenant();
      const started = `articles-upsert:${tenant}:priority`;
      await w.client.workflow.execute(upsertArticlesWorkflow, {
        taskQueue: w.taskQueue,
        workflowId: started,
        args: [{ tenant, articles: [article()] as Article[] }],
        priority: tenantPriority(tenant),
      });
      // Started without a priority (an operator's command, a run from before fairness): its TenantId names the tenant.
      const attributed = `articles-upsert:${tenant}:attribute`;
      await w.client.workflow.execute(upsertArticlesWorkflow, {
        taskQueue: w.taskQueue,
        workflowId: attributed,
        args: [{ tenant, articles: [article()] as Article[] }],
        typedSearchAttributes: [{ key: TenantId, value: tenant }],
      });
      for (const workflowId of [started, attributed]) {
        const events = await historyOf({ env: w.env, workflowId });
        const keys = events
          .flatMap((e) => e.activityTaskScheduledEventAttributes ?? [])
          .map((a) => a.priority?.fairnessKey);
        assert.deepEqual(keys, [tenant], workflowId);
      }
    });
  });

  it('deletes articles by their ids', async () => {
    const received = emptyReceived();
    await withTestWorkers({ activities: recordingStore(received) }, async (w) => {
      const result = await w.client.workflow.execute(deleteArticlesWorkflow, {
        taskQueue: w.taskQueue,
        workflowId: `articles-delete:${freshTenant()}`,
        args: [{ tenant: 'acme', articles: [{ articleId: 'a-1' }, { articleId: 'a-2' }] }],
      });
      assert.equal(result.stored, 2);
      assert.deepEqual(received.deletedIds, [['a-1', 'a-2']]);
    });
  });

  it('keeps retrying an accepted upload while the store is down, then stores it', async () => {
    const attempts: number[] = [];
    const downFor = 8;
    const store: Pick<Activities, 'upsertIncident'> = {
      async upsertIncident(input) {
        attempts.push(activityInfo().attempt);
        // A plain error, as a refused connection is: retryable.
        if (attempts.length <= downFor) throw new Error('connect ECONNREFUSED (test store down)');
        return { id: input.record.incident.id ?? 'no id' };
      },
    };
    await withTestWorkers({ activities: store }, async (w) => {
      const record = incident() as unknown as IncidentUpload;
      const workflowId = `incident-upsert:${freshTenant()}`;
      const result = await w.client.workflow.execute(upsertIncidentWorkflow, {
        taskQueue: w.taskQueue,
        workflowId,
        args: [{ tenant: 'acme', record }],
      });
      assert.deepEqual(result, { id: record.incident.id });
      assert.deepEqual(
        attempts,
        Array.from({ length: downFor + 1 }, (_, i) => i + 1),
      );
      // The back-off between attempts (1, 2, 4, … s, at most a minute) passed in server time.
      const events = await historyOf({ env: w.env, workflowId });
      const elapsedMs = eventTimeMs(events.at(-1)!) - eventTimeMs(events[0]);
      const backoffMs = [1, 2, 4, 8, 16, 32, 60, 60].reduce((a, b) => a + b, 0) * 1000;
      assert.ok(
        elapsedMs >= backoffMs,
        `the upload completed ${elapsedMs} ms after its start, before its retries' back-off`,
      );
    });
  });

  it('fails an invalid upload at once, without retrying it', async () => {
    const attempts: number[] = [];
    const store: Pick<Activities, 'upsertArticles'> = {
      async upsertArticles() {
        attempts.push(activityInfo().attempt);
        // Retryable by itself: the workflow's retry policy is what refuses to retry InvalidInput.
        throw ApplicationFailure.retryable('the article has no body', 'InvalidInput');
      },
    };
    await withTestWorkers({ activities: store }, async (w) => {
      const run = w.client.workflow.execute(upsertArticlesWorkflow, {
        taskQueue: w.taskQueue,
        workflowId: `articles-upsert:${freshTenant()}`,
        args: [{ tenant: 'acme', articles: [article()] as Article[] }],
      });
      const err = await run.then(
        () => assert.fail('the workflow completed'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof WorkflowFailedError);
      assert.ok(err.cause instanceof ActivityFailure);
      assert.ok(err.cause.cause instanceof ApplicationFailure);
      assert.equal(err.cause.cause.type, 'InvalidInput');
      assert.deepEqual(attempts, [1]);
    });
  });

  it("starts the tenant's tag trainer after storing tagged cases, and signals it on the next upload", async () => {
    const received = emptyReceived();
    // Isolated: the trainer outlives the uploads that started it, and its end would reach a parent
    // that has ended, which holds the test server's clock.
    await withTestWorkers({ activities: recordingStore(received), isolated: true }, async (w) => {
      const tenant = freshTenant();
      const trainer = w.client.workflow.getHandle(tagTrainerId(tenant));
      const upload = (id: string) =>
        w.client.workflow.execute(upsertCasesWorkflow, {
          taskQueue: w.taskQueue,
          workflowId: `cases-upsert:${tenant}:${id}`,
          args: [{ tenant, cases: [supportCase({ tags: ['billing'] })] as Case[] }],
        });
      await upload('1');
      await upload('2');
      assert.equal(received.cases.length, 2);

      // The trainer may have trained meanwhile (the server skips to its 60 s whenever nothing
      // else is due) and continued as new: its runs are followed from the first.
      assert.equal((await trainer.describe()).status.name, 'RUNNING');
      const [latestStart] = await historyOf({ env: w.env, workflowId: trainer.workflowId });
      const firstRunId = latestStart.workflowExecutionStartedEventAttributes?.firstExecutionRunId;
      assert.ok(firstRunId);
      // As the upload started it (the test server, unlike Temporal's, does not carry search
      // attributes over a continue-as-new, so the first run is the one to ask).
      const first = await w.client.workflow.getHandle(trainer.workflowId, firstRunId).describe();
      assert.equal(first.taskQueue, w.taskQueue);
      assert.equal(first.typedSearchAttributes.get(TenantId), tenant);
      assert.equal(first.typedSearchAttributes.get(OperationAttr), OPERATIONS.tagTrainer);
      const runs = await runChain({ env: w.env, workflowId: trainer.workflowId, firstRunId });
      const histories = await Promise.all(
        runs.map((runId) => historyOf({ env: w.env, workflowId: trainer.workflowId, runId })),
      );
      const input = histories[0][0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
      assert.ok(input, 'the trainer started without input');
      assert.deepEqual(JSON.parse(Buffer.from(input).toString()), { tenant, pending: true });
      // The second upload signalled the running trainer instead of starting another one.
      const signals = histories.flat().flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
      assert.deepEqual(signals, ['casesChanged']);
    });
  });

  it('leaves the tag trainer alone when the cases carry no tags', async () => {
    const received = emptyReceived();
    await withTestWorkers({ activities: recordingStore(received) }, async (w) => {
      const tenant = freshTenant();
      await w.client.workflow.execute(upsertCasesWorkflow, {
        taskQueue: w.taskQueue,
        workflowId: `cases-upsert:${tenant}`,
        args: [{ tenant, cases: [supportCase()] as Case[] }],
      });
      assert.equal(received.cases.length, 1);
      await assert.rejects(w.client.workflow.getHandle(tagTrainerId(tenant)).describe(), WorkflowNotFoundError);
    });
  });
});
