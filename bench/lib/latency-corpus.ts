/**
 * The latency benchmark's corpus: the StackFAQ threads (bench/lib/datasets.ts) serve both searches.
 * As cases they are uploaded like bench:search does (stackFaqCase); as articles, each thread is one
 * article titled with its question, its answers as the body's paragraphs. The queries are the
 * StackFAQ paraphrases, shuffled with a fixed seed so every run sends the same sequence.
 */
import { seeded, shuffleInPlace } from '../../domain/tags/softmax';
import type { StackFaqQuery, StackFaqThread } from './datasets';

/** A thread as a knowledge article: the question as the title, one markdown paragraph per answer. */
export function stackFaqArticle(t: StackFaqThread) {
  return {
    articleId: `stackfaq-${t.thread_id}`,
    url: `https://kb.bench.example/stackfaq/${t.thread_id}`,
    title: t.question,
    body: t.answers
      .map((a) => a.trim())
      .filter(Boolean)
      .join('\n\n'),
    timeOfCreation: Date.UTC(2024, 0, 1),
    timeLastPublished: Date.UTC(2024, 0, 1),
  };
}

/** The non-empty query texts in a fixed pseudo-random order (mulberry32 with `seed`). */
export function shuffledQueries(queries: readonly StackFaqQuery[], seed = 7): string[] {
  return shuffleInPlace(queries.map((q) => q.text.trim()).filter(Boolean), seeded(seed));
}
