/**
 * Keyword tags, for a tenant without a tag model: the message's content words (stop words of its
 * language removed, with the stopword package's lists), the most frequent first. A word's score is
 * its share of the message's content words, capped at KEYWORD_MAX_SCORE: keyword tags never look
 * as sure as a trained tag.
 */
import * as stopword from 'stopword';
import { toISO3 } from 'tinyld';
import type { TagScore } from './model';

export const KEYWORD_MAX_SCORE = 0.5;
const MIN_LENGTH = 3;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}_-]*/gu;

/** A language's stop words and English's, as a set (stopword's own removeStopwords scans its list for every word). */
const stopWordSets = new Map<string, Set<string>>();
function stopWords(language: string): Set<string> {
  const code: string = toISO3(language);
  let set = stopWordSets.get(code);
  if (!set) {
    const list = (stopword as unknown as Record<string, unknown>)[code === 'cmn' ? 'zho' : code];
    set = new Set([...(Array.isArray(list) ? (list as string[]) : []), ...stopword.eng]);
    stopWordSets.set(code, set);
  }
  return set;
}

export function keywordTags(input: { message: string; language: string; limit: number }): TagScore[] {
  const words = (input.message.toLowerCase().match(WORD) ?? []).filter(
    (w) => w.length >= MIN_LENGTH && !/^\d+$/.test(w),
  );
  const stop = stopWords(input.language);
  const content = words.filter((w) => !stop.has(w.toLowerCase()));
  if (content.length === 0) return [];
  // Insertion order is first appearance: the sort is stable, so ties keep it.
  const counts = new Map<string, number>();
  for (const w of content) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts]
    .sort(([, x], [, y]) => y - x)
    .slice(0, input.limit)
    .map(([name, n]) => ({ name, score: Math.min(KEYWORD_MAX_SCORE, n / content.length) }));
}
