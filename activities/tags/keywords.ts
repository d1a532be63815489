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

function stopWords(language: string): string[] {
  const code: string = toISO3(language);
  const list = (stopword as unknown as Record<string, unknown>)[code === 'cmn' ? 'zho' : code];
  return [...(Array.isArray(list) ? (list as string[]) : []), ...stopword.eng];
}

export function keywordTags(input: { message: string; language: string; limit: number }): TagScore[] {
  const words = (input.message.toLowerCase().match(WORD) ?? []).filter((w) => w.length >= MIN_LENGTH && !/^\d+$/.test(w));
  const content = stopword.removeStopwords(words, stopWords(input.language));
  if (content.length === 0) return [];
  // Insertion order is first appearance: the sort is stable, so ties keep it.
  const counts = new Map<string, number>();
  for (const w of content) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts]
    .sort(([, x], [, y]) => y - x)
    .slice(0, input.limit)
    .map(([name, n]) => ({ name, score: Math.min(KEYWORD_MAX_SCORE, n / content.length) }));
}
