/**
 * The built-in summary engine (no chat model): extractive. Every sentence of the conversation is
 * ranked by its centrality — TextRank (PageRank over the sentences, linked by the tf-idf cosine of
 * their content words) — plus a bonus for coming early, where the issue is stated; sentences with
 * almost no content ("OK.", "Thank you.") are left out. The best ones are taken while they fit the
 * word budget, skipping near-repeats of one already taken; in a transcript the last place is kept
 * for the outcome, a central sentence of its last third. They are put back in their original order.
 *
 * Presentation: a transcript (turns tagged `Speaker:`) becomes a short narrative, each sentence
 * attributed to its speaker; in English in reported speech ("I can't log in" said by the customer
 * becomes "The customer can't log in"). A ticket keeps its structure: the issue (subject and the
 * best description sentences), the actions (the best sentences of the comments) and the latest
 * message, under labels in the request language. The numbers below were tuned for ROUGE-1 on the
 * DialogSum dev split only (docs/benchmarks.md, bench:summary).
 */
import { contentTokens, sentences, words } from '../ask/sentences';
import { textLanguage as shownLanguage } from '../text/language';
import {
  boundConversation,
  type Conversation,
  type ConversationText,
  parseConversation,
  type Turn,
} from './conversation';
import { reportedSpeech, trimFillers } from './english';
import { summaryPhrases } from './i18n';

export const SUMMARY_EXTRACT = {
  /** Words of a transcript's summary (the first sentence may pass it alone). */
  maxWords: 35,
  maxSentences: 3,
  /** Weight of coming early, where the issue is told: the score adds positionWeight × (1 − position / count). */
  positionWeight: 1.5,
  /** The last place of a transcript's summary is kept for the outcome, told in its last 35 %. */
  outcomeShare: 0.35,
  /** How much a later sentence is preferred there: centrality + outcomeLateness × position / count. */
  outcomeLateness: 3,
  /** Sentences with fewer distinct content words are never taken (unless none has more). */
  minTokens: 3,
  /** Jaccard similarity of content words above which a sentence repeats a taken one. */
  redundancy: 0.5,
  damping: 0.85,
  /** A ticket: words of the issue, sentences of the actions, words of the latest message. */
  issueWords: 45,
  actionSentences: 2,
  latestWords: 30,
};

export type SummaryParams = typeof SUMMARY_EXTRACT;

/** One paragraph of a summary: an optional label and its text (plain, not yet escaped). */
export interface SummaryPart {
  label?: string;
  text: string;
}

export interface SummaryDraft {
  parts: SummaryPart[];
}

export interface Unit {
  /** Index of the turn it belongs to, and of the sentence within the turn. */
  turn: number;
  index: number;
  /** Position in the whole conversation. */
  order: number;
  text: string;
  tokens: string[];
  /** TextRank centrality, 0..1, and the score the units are ranked by. */
  centrality: number;
  score: number;
}

/**
 * What is ranked of a long conversation, so that a summary's cost is bounded whatever the input
 * (TextRank compares every pair of sentences): its first sentences, where the issue is told, and
 * its last ones, where the outcome is, read from at most `headChars` and `tailChars` characters;
 * of a very long message, its start; of a very long sentence, its first `sentenceChars` characters
 * (cut at a word, with `…`) and its first `sentenceTokens` content words. A sentence of DialogSum
 * has at most 342 characters and 48 content words: none of these bounds touches a conversation of
 * a normal size.
 */
export const RANKED = {
  headSentences: 160,
  tailSentences: 80,
  turnChars: 20_000,
  headChars: 100_000,
  tailChars: 50_000,
  sentenceChars: 1000,
  sentenceTokens: 100,
};

/** `text` cut to at most `max` characters, at its last space when there is one in the second half, with `…`. */
export function clipSentence(text: string, max = RANKED.sentenceChars): string {
  if (text.length <= max) return text;
  const window = text.slice(0, max - 1);
  const space = window.lastIndexOf(' ');
  const kept = space > max / 2 ? window.slice(0, space) : window;
  // Never half a surrogate pair.
  const last = kept.charCodeAt(kept.length - 1);
  return `${last >= 0xd800 && last <= 0xdbff ? kept.slice(0, -1) : kept}…`;
}

/**
 * The sentences of the turns (RANKED of them), fillers trimmed, with their content words: from the
 * first turns up to `headSentences` sentences or `headChars` characters, and from the last turns
 * (those the head did not reach) up to `tailSentences` or `tailChars`.
 */
export function units(turns: Turn[]): Unit[] {
  const of = (t: Turn, turn: number, chars: number) =>
    sentences(t.text.slice(0, Math.min(RANKED.turnChars, chars))).map((whole, index) => {
      const s = clipSentence(whole);
      // A sentence that is all filler stays as it is: the minimum of content words leaves it out.
      const text = t.part === 'subject' ? s : trimFillers(s) || s;
      const tokens = contentTokens(text).slice(0, RANKED.sentenceTokens);
      return { turn, index, order: 0, text, tokens, centrality: 0, score: 0 };
    });
  const read = (t: Turn) => Math.min(RANKED.turnChars, t.text.length);
  const head: Unit[] = [];
  let next = 0;
  for (let chars = RANKED.headChars; next < turns.length && head.length < RANKED.headSentences && chars > 0; next++) {
    head.push(...of(turns[next], next, chars).slice(0, RANKED.headSentences - head.length));
    chars -= read(turns[next]);
  }
  const tail: Unit[] = [];
  for (
    let last = turns.length - 1, chars = RANKED.tailChars;
    last >= next && tail.length < RANKED.tailSentences && chars > 0;
    last--
  ) {
    tail.unshift(...of(turns[last], last, chars).slice(-(RANKED.tailSentences - tail.length)));
    chars -= read(turns[last]);
  }
  return [...head, ...tail].map((u, order) => ({ ...u, order }));
}

/** A unit's tf-idf vector, unit length: term ids (in the order the sentence first uses them) and their weights. */
interface SparseVector {
  index: Int32Array;
  value: Float64Array;
}

/**
 * Centrality of each unit: PageRank over the tf-idf cosine graph, scaled so the best is 1. Terms
 * are numbered and each vector is spread once into a dense row, so comparing two sentences costs
 * one array read per term of one of them: at most RANKED's 240 sentences of 1,000 characters.
 */
export function textRank(list: Unit[], damping = SUMMARY_EXTRACT.damping): number[] {
  const n = list.length;
  if (n === 0) return [];
  const ids = new Map<string, number>();
  const df: number[] = [];
  const counts = list.map((u) => {
    const tf = new Map<number, number>();
    for (const t of u.tokens) {
      let id = ids.get(t);
      if (id === undefined) {
        id = df.length;
        ids.set(t, id);
        df.push(0);
      }
      tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    for (const id of tf.keys()) df[id] += 1;
    return tf;
  });
  const vectors: SparseVector[] = counts.map((tf) => {
    const index = Int32Array.from(tf.keys());
    const value = Float64Array.from(index, (id) => tf.get(id)! * Math.log(1 + n / df[id]));
    const norm = Math.sqrt(value.reduce((a, x) => a + x * x, 0)) || 1;
    return { index, value: value.map((x) => x / norm) };
  });
  const sim: Float64Array[] = vectors.map(() => new Float64Array(n));
  const row = new Float64Array(df.length);
  for (let j = 0; j < n; j++) {
    const b = vectors[j];
    b.index.forEach((id, k) => (row[id] = b.value[k]));
    for (let i = 0; i < n; i++) {
      if (i === j) continue;
      const a = vectors[i];
      let s = 0;
      for (let k = 0; k < a.index.length; k++) s += a.value[k] * row[a.index[k]];
      sim[i][j] = s;
    }
    b.index.forEach((id) => (row[id] = 0));
  }
  const out = sim.map((row) => row.reduce((a, x) => a + x, 0));
  let rank = new Array<number>(n).fill(1 / n);
  for (let iter = 0; iter < 50; iter++) {
    const next = new Array<number>(n).fill((1 - damping) / n);
    for (let j = 0; j < n; j++) {
      // A sentence linked to none spreads its rank evenly (as PageRank treats a dangling page).
      if (out[j] === 0) for (let i = 0; i < n; i++) next[i] += (damping * rank[j]) / n;
      else for (let i = 0; i < n; i++) if (sim[j][i] > 0) next[i] += (damping * rank[j] * sim[j][i]) / out[j];
    }
    const delta = next.reduce((a, x, i) => a + Math.abs(x - rank[i]), 0);
    rank = next;
    if (delta < 1e-6) break;
  }
  const max = Math.max(...rank);
  return rank.map((r) => r / max);
}

const jaccard = (a: string[], b: string[]) => {
  const sa = new Set(a);
  const sb = new Set(b);
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter += 1;
  return inter / (sa.size + sb.size - inter || 1);
};

/** Scores the units in place: centrality plus the position bonus. */
export function scoreUnits(list: Unit[], p: SummaryParams = SUMMARY_EXTRACT): Unit[] {
  const centrality = textRank(list, p.damping);
  list.forEach((u, i) => {
    u.centrality = centrality[i];
    u.score = centrality[i] + p.positionWeight * (1 - i / list.length);
  });
  return list;
}

/**
 * The best units within `maxWords` (the first one taken may pass it alone) and `maxSentences`,
 * without near-repeats, in their original order.
 */
export function pick(
  list: Unit[],
  o: { maxWords: number; maxSentences: number; minTokens: number; redundancy: number },
): Unit[] {
  const eligible = list.filter((u) => new Set(u.tokens).size >= o.minTokens);
  const pool = (eligible.length ? eligible : list).slice().sort((a, b) => b.score - a.score || a.order - b.order);
  const chosen: Unit[] = [];
  let count = 0;
  for (const u of pool) {
    if (chosen.length >= o.maxSentences) break;
    const n = words(u.text).length;
    if (chosen.length > 0 && count + n > o.maxWords) continue;
    if (chosen.some((c) => jaccard(c.tokens, u.tokens) > o.redundancy)) continue;
    chosen.push(u);
    count += n;
  }
  return chosen.sort((a, b) => a.order - b.order);
}

/**
 * The best units (pick), with the last place kept for the outcome: the unit of the last
 * `outcomeShare` of the conversation that is most central and latest (centrality plus
 * outcomeLateness × its relative position), when one fits and repeats none of the others.
 */
export function withOutcome(list: Unit[], p: SummaryParams): Unit[] {
  if (p.outcomeShare <= 0 || list.length < 4) return pick(list, p);
  const first = list[0].order;
  const span = list[list.length - 1].order - first + 1;
  const isTail = (u: Unit) => u.order - first >= span * (1 - p.outcomeShare);
  const late = (u: Unit) => u.centrality + (p.outcomeLateness * (u.order - first)) / span;
  const chosen = pick(list, { ...p, maxSentences: p.maxSentences - 1 });
  const used = chosen.reduce((a, u) => a + words(u.text).length, 0);
  const outcome = list
    .filter(
      (u) =>
        isTail(u) &&
        !chosen.includes(u) &&
        new Set(u.tokens).size >= p.minTokens &&
        used + words(u.text).length <= p.maxWords,
    )
    .filter((u) => !chosen.some((c) => jaccard(c.tokens, u.tokens) > p.redundancy))
    .sort((a, b) => late(b) - late(a) || b.order - a.order)[0];
  return (outcome ? [...chosen, outcome] : chosen).sort((a, b) => a.order - b.order);
}

/** `#Person1#` reads `Person1`; `Customer`/`Agent` tags read as roles in an English narrative. */
export function speakerName(tag: string): string {
  const t = tag.trim();
  if (/^(customer|client|user|caller|guest)$/i.test(t)) return 'the customer';
  if (/^(agent|support|rep|representative|operator|staff|assistant|advisor)$/i.test(t)) return 'the agent';
  return t;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const endWithStop = (s: string) => (/[.!?…]["')\]]*$/.test(s) ? s : `${s}.`);

/** Sentence openers that are not names, so "says" may run on in lower case. */
const COMMON_OPENERS = new Set(
  "it it's its this that these those they they're there there's the a an we we're we'll we've let's what what's how when where why who which whose if and but so then all some any no not just maybe perhaps here here's to in on at for of with do does did is are was were can could will would should shall may might must have has had be please".split(
    ' ',
  ),
);

/** One sentence of a transcript as a summary tells it. */
function narrate(u: Unit, turn: Turn, c: Conversation, english: boolean): string {
  if (!turn.speaker) return endWithStop(u.text);
  const speaker = speakerName(turn.speaker);
  if (!english) return `${capitalize(speaker)}: ${endWithStop(u.text)}`;
  const others = c.speakers.filter((s) => s !== turn.speaker);
  const listener = others.length === 1 ? speakerName(others[0]) : undefined;
  const told = reportedSpeech(u.text, speaker, listener);
  const names = [speaker, ...(listener ? [listener] : [])];
  if (names.some((n) => told.toLowerCase().includes(n.toLowerCase()))) return endWithStop(capitalize(told));
  // A sentence that names no one is told as said by its speaker.
  const verb = /\?\s*$/.test(told) ? 'asks' : 'says';
  const first = told.split(/\s/, 1)[0];
  if (COMMON_OPENERS.has(first.toLowerCase()))
    return `${capitalize(speaker)} ${verb} ${endWithStop(first.toLowerCase() + told.slice(first.length))}`;
  return `${capitalize(speaker)} ${verb}: ${endWithStop(told)}`;
}

/** The language the conversation is written in (not the request's): decides the reported speech. */
const textLanguage = (c: Conversation) =>
  shownLanguage(
    c.turns
      .slice(0, 50)
      .map((t) => t.text.slice(0, 2000))
      .join('\n'),
  ) ?? 'en';

export function summarizeLocal(o: {
  conversation: ConversationText;
  language: string;
  params?: SummaryParams;
}): SummaryDraft {
  const p = o.params ?? SUMMARY_EXTRACT;
  const c = parseConversation(boundConversation(o.conversation));
  if (c.turns.length === 0) return { parts: [] };
  const english = textLanguage(c) === 'en';
  const labels = summaryPhrases(o.language);
  const subject = c.turns[0].part === 'subject' ? c.turns[0] : undefined;
  const all = scoreUnits(units(c.turns), p);

  if (c.speakers.length > 0) {
    // A transcript: one narrative; a subject above it names the issue.
    const body = all.filter((u) => c.turns[u.turn].part !== 'subject');
    const chosen = withOutcome(body, p);
    const text = chosen.map((u) => narrate(u, c.turns[u.turn], c, english)).join(' ');
    return {
      parts: [
        ...(subject ? [{ label: labels.issue, text: endWithStop(subject.text) }] : []),
        ...(text ? [{ text }] : []),
      ],
    };
  }

  // A ticket: the issue (told early), the actions (the comments' most central sentences, wherever
  // they are) and the latest message (where things stand).
  const isIssue = (u: Unit) => c.turns[u.turn].part !== 'comment';
  const lastTurn = c.turns.length - 1;
  const issueUnits = all.filter(isIssue);
  const issue = pick(issueUnits, { ...p, maxWords: p.issueWords });
  // The subject, when there is one, always states the issue.
  if (subject && !issue.some((u) => u.turn === 0)) issue.unshift(issueUnits[0]);
  const latestUnits = c.turns[lastTurn].part === 'comment' ? all.filter((u) => u.turn === lastTurn) : [];
  const latest = pick(latestUnits, { ...p, maxWords: p.latestWords, maxSentences: 2 });
  const actionUnits = all
    .filter(
      (u) => !isIssue(u) && u.turn !== lastTurn && !latest.some((l) => jaccard(l.tokens, u.tokens) > p.redundancy),
    )
    .map((u) => ({ ...u, score: u.centrality }));
  const actions = pick(actionUnits, { ...p, maxSentences: p.actionSentences });
  const join = (list: Unit[]) => list.map((u) => endWithStop(u.text)).join(' ');
  return {
    parts: [
      ...(issue.length ? [{ label: labels.issue, text: join(issue) }] : []),
      ...(actions.length ? [{ label: labels.actions, text: join(actions) }] : []),
      ...(latest.length ? [{ label: labels.latest, text: join(latest) }] : []),
    ],
  };
}
