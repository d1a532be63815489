/**
 * The tag-training activity: reads the tenant's tagged cases (spam excluded) with their vectors,
 * trains the tag model (model.ts) and stores it (weaviate/tag-models.ts). It heartbeats while it
 * reads, embeds and trains, so the Temporal UI shows where it is. With an English encoder
 * configured, every case's text is read by it too (its opening only, about 250 tokens), taking
 * the tenant's turn at that server; the worker's vector cache (worker/deps.ts) spares the cases
 * a previous training already read.
 */
import { reportProgress as progress } from '../progress';
import type { WeaviateClient } from 'weaviate-client';
import type { Embedder } from '../models/embeddings';
import { storeTagModel, tagTrainingCases } from '../weaviate/tag-models';
import { TAG_TRAINING, trainTagModel } from './model';

export interface TagTrainingRun {
  /** Tagged cases read (not spam), cases trained on, and spam cases left out. */
  taggedCases: number;
  cases: number;
  spamCases: number;
  /** Tags the model predicts, and tags left out for having fewer than MIN_TAG_CASES cases. */
  tags: number;
  rareTags: number;
  /** Accuracy of the top tag on held-out cases (null when there were too few). */
  holdoutAccuracy: number | null;
  temperature: number | null;
  /** Model version stored (its training time), or null when there was too little to train on. */
  version: number | null;
  durationMs: number;
}

export async function trainTags(deps: { weaviate: () => Promise<WeaviateClient>; embedder: Embedder; english?: Embedder; signal?: AbortSignal; now?: () => number }, input: { tenant: string }): Promise<TagTrainingRun> {
  const started = Date.now();
  const { examples, spam } = await tagTrainingCases({ ...deps, onPage: (read) => progress({ phase: 'reading cases', read }) }, input);
  const used = examples.slice(0, TAG_TRAINING.maxCases);
  const allTags = new Set(used.flatMap((e) => e.tags));
  let epochs = 0;
  let named = 0;
  let read = 0;
  const english = deps.english;
  const model = await trainTagModel(used, {
    now: (deps.now ?? Date.now)(),
    onEpoch: () => progress({ phase: 'training', cases: used.length, epochs: ++epochs }),
    // Names are embedded as the cases were (passages), taking the tenant's turn at the server.
    embedNames: (texts) => deps.embedder.embed({ texts, inputType: 'passage', tenant: input.tenant, signal: deps.signal, onBatch: () => progress({ phase: 'embedding tag names', batches: ++named, tags: texts.length }) }),
    english: english && {
      model: english.model,
      embed: (texts) => english.embed({ texts, inputType: 'passage', tenant: input.tenant, signal: deps.signal, onBatch: () => progress({ phase: 'reading texts with the English encoder', batches: ++read, texts: texts.length }) }),
    },
  });
  const stored = model ? await storeTagModel(deps, { tenant: input.tenant, model }) : null;
  return {
    taggedCases: examples.length,
    cases: model?.cases ?? 0,
    spamCases: spam,
    tags: model?.tags.length ?? 0,
    rareTags: allTags.size - (model?.tags.length ?? 0),
    holdoutAccuracy: model?.holdoutAccuracy ?? null,
    temperature: model?.temperature ?? null,
    version: stored?.version ?? null,
    durationMs: Date.now() - started,
  };
}
