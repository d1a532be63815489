/**
 * Answers of ask and the feedback on them, per tenant (collections AskAnswer and AskFeedback).
 * Each ask stores its answer before it returns (activity `storeAnswer`; idempotent: the object id
 * comes from the answer id); feedback is written by the API as it arrives, one object per feedback, so two at once never
 * overwrite each other.
 */
import type { WeaviateClient } from 'weaviate-client';
import { COLLECTIONS, collectionOf, tenantCollection } from './collections';
import { objectId } from './ingest';
import type { AskAnswerProperties } from './properties';

/**
 * An answer as stored: what was asked, what was answered (`answer`, plain text), from which sources,
 * when (`createdAt`, epoch ms); the stored properties with the sources' JSON read.
 */
export type AnswerRecord = Omit<AskAnswerProperties, 'sourcesJson'> & {
  sources: { kind: string; id: string; title: string; url: string }[];
};

export interface FeedbackRecord {
  answerId: string;
  details: string;
  /** 1 helpful, -1 not helpful, 0 no rating given. */
  rating: number;
  createdAt: number;
}

interface Deps {
  weaviate: () => Promise<WeaviateClient>;
}

export async function storeAnswers(deps: Deps, input: { tenant: string; answers: AnswerRecord[] }): Promise<void> {
  if (input.answers.length === 0) return;
  const collection = collectionOf(await deps.weaviate(), COLLECTIONS.askAnswer).withTenant(input.tenant);
  const res = await collection.data.insertMany(
    input.answers.map(({ sources, ...a }) => ({
      id: objectId(input.tenant, 'answer', a.answerId),
      properties: { ...a, sourcesJson: JSON.stringify(sources) },
    })),
  );
  if (res.hasErrors) throw new Error(Object.values(res.errors)[0]?.message ?? 'storing answers failed');
}

const toAnswer = (p: AskAnswerProperties): AnswerRecord => {
  const { sourcesJson, ...rest } = p;
  return { ...rest, createdAt: Number(p.createdAt), sources: JSON.parse(sourcesJson || '[]') };
};

/** The answer `answerId` of `tenant`, or undefined: another tenant's answer is never found. */
export async function findAnswer(
  deps: Deps,
  input: { tenant: string; answerId: string },
): Promise<AnswerRecord | undefined> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.askAnswer, input.tenant);
  const found = await collection?.query.fetchObjectById(objectId(input.tenant, 'answer', input.answerId));
  return found ? toAnswer(found.properties) : undefined;
}

/** The stored answers of one chat session of `tenant`, the latest `limit`, oldest first. */
export async function sessionAnswers(
  deps: Deps,
  input: { tenant: string; chatId: string; limit: number },
): Promise<AnswerRecord[]> {
  const collection = await tenantCollection(await deps.weaviate(), COLLECTIONS.askAnswer, input.tenant);
  if (!collection) return [];
  const res = await collection.query.fetchObjects({
    filters: collection.filter.byProperty('chatId').equal(input.chatId),
    limit: input.limit,
    sort: collection.sort.byProperty('createdAt', false),
  });
  return res.objects.map((o) => toAnswer(o.properties)).reverse();
}

export async function storeFeedback(deps: Deps, input: { tenant: string; feedback: FeedbackRecord }): Promise<void> {
  const collection = collectionOf(await deps.weaviate(), COLLECTIONS.askFeedback).withTenant(input.tenant);
  await collection.data.insert({ properties: { ...input.feedback } });
}

export interface AnswerWithFeedback extends AnswerRecord {
  feedback: FeedbackRecord[];
}

/**
 * A tenant's answers with their feedback, newest first: those created since `since` (epoch ms),
 * and with `negativeOnly` only those with a negative rating. Reads at most `limit` answers.
 */
export async function listAnswersWithFeedback(
  deps: Deps,
  input: { tenant: string; since?: number; negativeOnly?: boolean; limit?: number },
): Promise<AnswerWithFeedback[]> {
  const client = await deps.weaviate();
  const answers = await tenantCollection(client, COLLECTIONS.askAnswer, input.tenant);
  if (!answers) return [];
  const feedbacks = await tenantCollection(client, COLLECTIONS.askFeedback, input.tenant);
  const byAnswer = new Map<string, FeedbackRecord[]>();
  if (feedbacks) {
    for await (const o of feedbacks.iterator()) {
      const f = o.properties;
      const record = {
        answerId: f.answerId,
        details: f.details,
        rating: Number(f.rating),
        createdAt: Number(f.createdAt),
      };
      byAnswer.set(record.answerId, [...(byAnswer.get(record.answerId) ?? []), record]);
    }
  }
  const filters =
    input.since !== undefined ? answers.filter.byProperty('createdAt').greaterOrEqual(input.since) : undefined;
  const res = await answers.query.fetchObjects({
    filters,
    limit: input.limit ?? 1000,
    sort: answers.sort.byProperty('createdAt', false),
  });
  return res.objects
    .map((o) => {
      const answer = toAnswer(o.properties);
      const feedback = (byAnswer.get(answer.answerId) ?? []).sort((a, b) => b.createdAt - a.createdAt);
      return { ...answer, feedback };
    })
    .filter((a) => !input.negativeOnly || a.feedback.some((f) => f.rating < 0));
}
