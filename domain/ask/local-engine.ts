/**
 * The built-in answer engine (no chat model): an extract of the best sources. From each source
 * it picks the sentences that share the most content words with the question (long sentences
 * weigh less, earlier passages more), drops near-repeats, and keeps them in the source's order,
 * behind a lead-in in the request language. An incident is told by its name, start, status and
 * latest update. The extract is in the source's own language.
 */
import { type AnswerPart, type ComposedAnswer, RESPONSE_TYPE_BY_KIND, type RankedSource } from './compose';
import { phrases } from './i18n';
import { contentTokens, sentences, words } from './sentences';

export const EXTRACT = { maxSentences: 3, maxWords: 90, secondarySentences: 2 };

interface Candidate {
  text: string;
  passage: number;
  index: number;
  tokens: Set<string>;
  score: number;
}

const jaccard = (a: Set<string>, b: Set<string>) => {
  let inter = 0;
  for (const t of a) if (b.has(t)) inter += 1;
  return inter / (a.size + b.size - inter || 1);
};

/** The sentences of `passages` that best answer `question`, in their original order. */
export function bestSentences(
  question: string,
  passages: string[],
  max = EXTRACT.maxSentences,
  maxWords = EXTRACT.maxWords,
): string[] {
  const wanted = new Set(contentTokens(question));
  const candidates: Candidate[] = passages.flatMap((p, passage) =>
    sentences(p).map((text, index) => {
      const tokens = new Set(contentTokens(text));
      let overlap = 0;
      for (const t of tokens) if (wanted.has(t)) overlap += 1;
      const score = overlap / Math.sqrt(Math.max(tokens.size, 4)) - 0.05 * passage - 0.01 * index;
      return { text, passage, index, tokens, score };
    }),
  );
  if (candidates.length === 0) return [];
  // Nothing in common (another language, or a paraphrase): the source was chosen by meaning, so
  // its opening sentences stand for it.
  const shares = (c: Candidate) => [...c.tokens].some((t) => wanted.has(t));
  const sharing = candidates.filter(shares);
  const order = sharing.length ? sharing.sort((a, b) => b.score - a.score) : candidates;
  const chosen: Candidate[] = [];
  let count = 0;
  for (const c of order) {
    if (chosen.length >= max) break;
    const n = words(c.text).length;
    if (chosen.length > 0 && count + n > maxWords) continue;
    if (chosen.some((d) => jaccard(c.tokens, d.tokens) > 0.5)) continue;
    chosen.push(c);
    count += n;
  }
  return chosen.sort((a, b) => a.passage - b.passage || a.index - b.index).map((c) => c.text);
}

/** An ISO date-time as `2024-05-01 12:00 UTC`, the same in every language. */
export function formatTime(iso: string): string | undefined {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC` : undefined;
}

function part(question: string, source: RankedSource, language: string, sentenceCount: number): AnswerPart | undefined {
  const p = phrases(language);
  if (source.kind === 'incident' && source.incident) {
    const { incident } = source;
    const lead = p.incident({
      name: source.title,
      started: formatTime(incident.startedAt),
      status: incident.status || undefined,
      ongoing: incident.ongoing,
    });
    return { lead, text: incident.latestUpdate ? `${p.latestUpdate} ${incident.latestUpdate}` : '', source };
  }
  const text = bestSentences(question, source.passages, sentenceCount).join(' ');
  if (!text) return undefined;
  return { lead: source.kind === 'case' ? p.fromCase(source.title) : p.fromArticle(source.title), text, source };
}

/** The local engine's answer from the chosen sources (best first); none means no answer. */
export function composeLocal(o: { question: string; sources: RankedSource[]; language: string }): ComposedAnswer {
  const parts = o.sources
    .map((s, i) => part(o.question, s, o.language, i === 0 ? EXTRACT.maxSentences : EXTRACT.secondarySentences))
    .filter((p): p is AnswerPart => p !== undefined);
  if (parts.length === 0) return { responseType: 'no-answer', parts: [], used: [] };
  const used = parts.map((p) => p.source!);
  return { responseType: RESPONSE_TYPE_BY_KIND[used[0].kind], parts, used };
}
