/**
 * `npm run bench:tune-tags [-- options]`: how the tag model's settings (domain/tags/model.ts)
 * were chosen, on BANKING77's training set only, against the real embedding server
 * (scripts/stack/bench.ts starts the stack). The test set is never read here; bench/tags.ts
 * reports it through the API.
 *
 * Every training question is embedded once, as cases are (a passage), and so is every intent's
 * name; both are also read once by the English encoder when one is configured (TAG_EMBEDDINGS_URL,
 * the launcher's). Then, for each setting of the grid (the embedding's weight against the words',
 * whether tag names are training examples, and the English vector's weight if it is read):
 * - few-shot: for each seed, `--shots` questions of each intent drawn from the training set train
 *   the model, and every third of the remaining training questions measures it;
 * - many-shot (the current settings and the previous ones only, each training takes minutes):
 *   85% of each intent's questions train, the other 15% measure.
 * Accuracy of the top tag. Writes bench/results/tune-tags.json.
 */
import { Command } from 'commander';
import { loadServicesConfig } from '../domain/config';
import { createEmbedder, createEnglishEncoder, type Embedder } from '../domain/models/embeddings';
import { seeded, shuffleInPlace } from '../domain/tags/softmax';
import { TAG_TRAINING, tagNameText, tagPredictor, trainTagModel, type TagExample } from '../domain/tags/model';
import { loadBanking77 } from './lib/datasets';
import { chunks } from './lib/api-client';
import { progress } from './lib/progress';
import { DEFAULT_DATASETS, positiveInt, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';

interface Setting {
  denseScale: number;
  names: boolean;
  /** The English vector's weight; absent: the model does not read it. */
  english?: number;
}

const WITHOUT_ENGLISH: Setting[] = [2, 3, 4].flatMap((denseScale) =>
  [false, true].map((names) => ({ denseScale, names })),
);
const WITH_ENGLISH: Setting[] = [
  [1, 3],
  [2, 3],
  [0.5, 3],
  [1, 2],
  [1, 4],
].map(([denseScale, english]) => ({ denseScale, names: true, english }));
/** The settings without the English encoder, compared with the current ones in the many-shot split. */
const PREVIOUS: Setting = { denseScale: TAG_TRAINING.denseScale, names: true };
const CURRENT: Setting = {
  denseScale: TAG_TRAINING.withEnglish.denseScale,
  english: TAG_TRAINING.withEnglish.englishScale,
  names: true,
};
const SEEDS = [1, 2, 3];
const EMBED_BATCH = 64;

type Example = TagExample & { tag: string };

/** Splits by intent: `take(n)` questions of each intent (shuffled by `seed`) train, the rest measure. */
function split(examples: readonly Example[], seed: number, take: (n: number) => number) {
  const random = seeded(seed);
  const byTag = new Map<string, Example[]>();
  for (const e of examples) {
    const group = byTag.get(e.tag);
    if (group) group.push(e);
    else byTag.set(e.tag, [e]);
  }
  const train: Example[] = [];
  const measure: Example[] = [];
  for (const group of byTag.values()) {
    const shuffled = shuffleInPlace(group, random);
    const n = take(shuffled.length);
    train.push(...shuffled.slice(0, n));
    measure.push(...shuffled.slice(n));
  }
  return { train, measure };
}

type Lookup = Map<string, number[]>;

async function accuracy(o: {
  train: Example[];
  measure: Example[];
  setting: Setting;
  nameVectors: Lookup;
  englishVectors: Lookup;
}): Promise<number> {
  const lookup = (vectors: Lookup) => async (texts: string[]) => texts.map((t) => vectors.get(t)!);
  const embedNames = o.setting.names ? lookup(o.nameVectors) : undefined;
  const english =
    o.setting.english === undefined
      ? undefined
      : { model: 'english', embed: lookup(o.englishVectors), scale: o.setting.english };
  const model = await trainTagModel(o.train, { now: 0, embedNames, denseScale: o.setting.denseScale, english });
  if (!model) throw new Error('no model: too few tagged examples');
  const predict = tagPredictor(model);
  return (
    o.measure.filter((e) => predict({ ...e, english: o.englishVectors.get(e.text) })[0].name === e.tag).length /
    o.measure.length
  );
}

const label = (s: Setting) =>
  `dense ${s.denseScale}, names ${s.names ? 'yes' : 'no'}${s.english === undefined ? '' : `, English ${s.english}`}`;

/** Vectors of `texts` by one embedder, in batches, with a progress bar. */
async function embedAll(embedder: Embedder, texts: string[], label: string): Promise<Lookup> {
  const bar = progress(`[tune-tags] ${label}`, texts.length, { every: 1000 });
  const vectors: number[][] = [];
  for (const batch of chunks(texts, EMBED_BATCH)) {
    vectors.push(...(await embedder.embed({ texts: batch, inputType: 'passage' })));
    bar.tick(batch.length);
  }
  bar.stop();
  return new Map(texts.map((t, i) => [t, vectors[i]]));
}

async function main(): Promise<void> {
  const o = new Command('bench:tune-tags')
    .description("Chooses the tag model's settings on BANKING77's training set (few-shot and many-shot splits).")
    .option('--datasets <dir>', 'folder holding banking77/ (relative to the repository root)', DEFAULT_DATASETS)
    .option('--shots <n>', 'questions per intent in the few-shot splits', positiveInt, 10)
    .option('--out <file>', 'result file (relative to the repository root)', 'bench/results/tune-tags.json')
    .parse()
    .opts<{ datasets: string; shots: number; out: string }>();
  const info = runInfo();
  const rows = loadBanking77(resolveDatasets(o.datasets), 'train');
  const config = loadServicesConfig();
  const englishEncoder = createEnglishEncoder(config);
  const texts = [...rows.map((r) => r.text), ...[...new Set(rows.map((r) => r.category))].map(tagNameText)];
  const vectors = await embedAll(createEmbedder(config.embeddings), texts, 'embedding');
  const englishVectors = englishEncoder ? await embedAll(englishEncoder, texts, 'English encoder') : new Map();
  const examples: Example[] = rows.map((r) => ({
    vector: vectors.get(r.text)!,
    text: r.text,
    tags: [r.category],
    tag: r.category,
  }));
  const grid = [...WITHOUT_ENGLISH, ...(englishEncoder ? WITH_ENGLISH : [])];

  const fewShot = [];
  for (const setting of grid) {
    const runs = [];
    for (const seed of SEEDS) {
      const { train, measure } = split(examples, seed, () => o.shots);
      runs.push(
        await accuracy({
          train,
          measure: measure.filter((_, i) => i % 3 === 0),
          setting,
          nameVectors: vectors,
          englishVectors,
        }),
      );
    }
    const mean = runs.reduce((a, b) => a + b, 0) / runs.length;
    console.log(
      `[tune-tags] ${o.shots}-shot, ${label(setting)}: ${mean.toFixed(4)} (${runs.map((r) => r.toFixed(4)).join(', ')})`,
    );
    fewShot.push({ ...setting, accuracy: round(mean), per_seed: runs.map((r) => round(r)) });
  }
  const manyShot = [];
  for (const setting of englishEncoder ? [PREVIOUS, CURRENT] : [PREVIOUS]) {
    const { train, measure } = split(examples, SEEDS[0], (n) => Math.round(n * 0.85));
    const acc = await accuracy({ train, measure, setting, nameVectors: vectors, englishVectors });
    console.log(`[tune-tags] many-shot (85/15), ${label(setting)}: ${acc.toFixed(4)}`);
    manyShot.push({ ...setting, accuracy: round(acc), trained_on: train.length, measured_on: measure.length });
  }
  writeResult(o.out, {
    ...info,
    dataset: 'BANKING77 training set only',
    current: englishEncoder ? CURRENT : PREVIOUS,
    english_encoder: englishEncoder?.model ?? null,
    few_shot: { shots: o.shots, seeds: SEEDS, measured: 'every third remaining training question', grid: fewShot },
    many_shot: manyShot,
  });
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(`[tune-tags] ${err.stack ?? err}`);
      process.exit(1);
    },
  );
}
