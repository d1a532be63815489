/**
 * The tag-training activity: reads the tenant's tagged cases (spam excluded) with their vectors,
 * embeds the tag names and reads every text with the English encoder (model.ts,
 * readTagTrainingInputs), then fits the tag model on the worker's tag-training CPU thread
 * (domain/cpu: a thread of its own, apart from grading's, with its own budget,
 * WORKER_TAG_TRAINING_BUDGET_MS) and stores it (weaviate/tag-models.ts). The reading stays in this
 * thread: it takes the tenant's turn at the embedding servers, and the worker's vector cache
 * (worker/deps.ts) spares the texts a previous training already read. The fit, minutes of CPU for
 * a large tenant, never holds the worker's event loop; the activity heartbeats while it waits, so a
 * cancelled training (its workflow terminated, its attempt timed out) stops its thread at once.
 */
import type { WeaviateClient } from 'weaviate-client';
import type { CpuPool } from '../cpu/pool';
import type { Embedder } from '../models/embeddings';
import { heartbeating, type Progress } from '../progress';
import { storeTagModel, tagTrainingCases } from '../weaviate/tag-models';
import { readTagTrainingInputs, TAG_TRAINING, tagTrainingBuffers } from './model';

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

interface Deps {
  weaviate: () => Promise<WeaviateClient>;
  embedder: Embedder;
  english?: Embedder;
  /** The thread tag models are fitted on. */
  tagCpu: CpuPool;
  signal?: AbortSignal;
  now?: () => number;
  progress?: Progress;
}

/** The reading part: the cases, then what the fit needs of the embedding servers. Only the packed inputs outlive it. */
async function readInputs(deps: Deps, input: { tenant: string }) {
  const { examples, spam } = await tagTrainingCases(
    { ...deps, onPage: (read) => deps.progress?.({ phase: 'reading cases', read }) },
    input,
  );
  const used = examples.slice(0, TAG_TRAINING.maxCases);
  let named = 0;
  let read = 0;
  const english = deps.english;
  const inputs = await readTagTrainingInputs(used, {
    now: (deps.now ?? Date.now)(),
    // Names are embedded as the cases were (passages), taking the tenant's turn at the server.
    embedNames: (texts) =>
      deps.embedder.embed({
        texts,
        inputType: 'passage',
        tenant: input.tenant,
        signal: deps.signal,
        onBatch: () => deps.progress?.({ phase: 'embedding tag names', batches: ++named, tags: texts.length }),
      }),
    english: english && {
      model: english.model,
      embed: (texts) =>
        english.embed({
          texts,
          inputType: 'passage',
          tenant: input.tenant,
          signal: deps.signal,
          onBatch: () =>
            deps.progress?.({ phase: 'reading texts with the English encoder', batches: ++read, texts: texts.length }),
        }),
    },
  });
  return { inputs, taggedCases: examples.length, spamCases: spam, allTags: new Set(used.flatMap((e) => e.tags)).size };
}

export async function trainTags(deps: Deps, input: { tenant: string }): Promise<TagTrainingRun> {
  const started = Date.now();
  const { inputs, taggedCases, spamCases, allTags } = await readInputs(deps, input);
  const model =
    inputs &&
    (await heartbeating(
      deps.tagCpu.run({ task: 'trainTags', input: inputs, transfer: tagTrainingBuffers(inputs), signal: deps.signal }),
      {
        progress: deps.progress,
        details: { phase: 'training', cases: inputs.cases, tags: inputs.tags.length, since: new Date().toISOString() },
      },
    ));
  const stored = model ? await storeTagModel(deps, { tenant: input.tenant, model }) : null;
  return {
    taggedCases,
    cases: model?.cases ?? 0,
    spamCases,
    tags: model?.tags.length ?? 0,
    rareTags: allTags - (model?.tags.length ?? 0),
    holdoutAccuracy: model?.holdoutAccuracy ?? null,
    temperature: model?.temperature ?? null,
    version: stored?.version ?? null,
    durationMs: Date.now() - started,
  };
}
