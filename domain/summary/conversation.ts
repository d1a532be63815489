/**
 * A conversation to summarize, as turns: who said what, in order. A ticket is its subject and
 * description (the customer's) and its comments (author unknown). A transcript pasted into the
 * description or the comments, one `Speaker: text` line per turn (`#Person1#: …`, `Customer: …`,
 * `Agent: …`), is read turn by turn with its speakers. The text is data only: nothing in it
 * changes how it is read beyond these tags.
 */

export interface ConversationText {
  subject?: string;
  description?: string;
  /** Messages, oldest first. */
  comments?: string[];
}

export type TurnPart = 'subject' | 'description' | 'comment';

export interface Turn {
  /** The speaker's tag as written (`Person1`, `Customer`), when the text names one. */
  speaker?: string;
  text: string;
  part: TurnPart;
}

export interface Conversation {
  turns: Turn[];
  /** Speakers in order of first turn; empty when the text names none (a plain ticket). */
  speakers: string[];
}

/** `#Person1#: text`, or a short name of one to three words then a colon: `Customer: text`. */
const TAG = /^\s*(?:#([^#\n:]{1,40})#|([\p{Lu}][\p{L}\p{N}_.'-]{0,24}(?: [\p{L}\p{N}_.'-]{1,24}){0,2}))\s*:\s*(\S.*)$/u;

/** Words before a colon that start a heading or a field, never a speaker. */
const NOT_SPEAKERS = new Set([
  'note',
  'notes',
  'update',
  'subject',
  'description',
  'steps',
  'error',
  'warning',
  'question',
  'answer',
  're',
  'fw',
  'fwd',
  'ps',
  'p.s',
  'http',
  'https',
  'tip',
  'example',
  'summary',
]);

function tagOf(line: string): { speaker: string; text: string } | undefined {
  const m = TAG.exec(line);
  if (!m) return undefined;
  const speaker = (m[1] ?? m[2]).trim();
  if (NOT_SPEAKERS.has(speaker.toLowerCase())) return undefined;
  return { speaker, text: m[3].trim() };
}

/**
 * What a summary reads of a conversation, so that its cost is bounded whatever the input: its
 * first `headChars` characters and its last `tailChars` (description and comments, in order; the
 * subject is short). A conversation within both is read whole. Beyond them, the messages in the
 * middle are left out, the message where the head ends keeps its start and the one where the tail
 * begins its end (from a line start, so a transcript's turns stay whole). The ranking reads less
 * still (local-engine.ts, RANKED); these bounds leave it room for normalisation and for telling a
 * transcript from its lines.
 */
export const READ = { headChars: 200_000, tailChars: 100_000 };

export function boundConversation(c: ConversationText, o: typeof READ = READ): ConversationText {
  const blocks = [c.description ?? '', ...(c.comments ?? [])];
  const total = blocks.reduce((a, b) => a + b.length, 0);
  if (total <= o.headChars + o.tailChars) return c;
  const head: string[] = [];
  let first = 0;
  for (let room = o.headChars; first < blocks.length && room > 0; first++) {
    head.push(blocks[first].slice(0, room));
    room -= blocks[first].length;
  }
  const tail: string[] = [];
  for (let last = blocks.length - 1, room = o.tailChars; last >= first && room > 0; last--) {
    const b = blocks[last];
    if (b.length <= room) tail.unshift(b);
    else {
      const cut = b.length - room;
      const line = b.indexOf('\n', cut);
      tail.unshift(line >= 0 ? b.slice(line + 1) : b.slice(cut));
    }
    room -= b.length;
  }
  const [description, ...comments] = [...head, ...tail];
  return { subject: c.subject, description, comments };
}

/** Text exported by some tools spaces out apostrophes: `don ' t`, `I ' Ve`. */
export const normalizeText = (text: string) =>
  text
    .replace(/[’‘]/g, "'")
    .replace(/(\p{L}) ' (\p{L})/gu, (_, a: string, b: string) => `${a}'${b.toLowerCase()}`)
    .replace(/[ \t]+/g, ' ');

const lines = (text: string) => text.split(/\r?\n/).filter((l) => l.trim());

/**
 * Whether the description and comments read as a transcript: at least two tagged lines, by at
 * most eight speakers, at least one speaker seen twice, and most lines tagged.
 */
function isTranscript(blocks: string[]): boolean {
  const all = blocks.flatMap(lines);
  const tags = all.map(tagOf).filter((t) => t !== undefined);
  if (tags.length < 2 || tags.length < 0.6 * all.length) return false;
  const counts = new Map<string, number>();
  for (const t of tags) counts.set(t.speaker, (counts.get(t.speaker) ?? 0) + 1);
  return counts.size <= 8 && [...counts.values()].some((n) => n >= 2);
}

/** The turns of a conversation, in order; blank parts are left out. */
export function parseConversation(c: ConversationText): Conversation {
  const subject = normalizeText(c.subject ?? '').trim();
  const description = normalizeText(c.description ?? '').trim();
  const comments = (c.comments ?? []).map((m) => normalizeText(m).trim()).filter(Boolean);
  const turns: Turn[] = [];
  if (subject) turns.push({ text: subject.replace(/\s+/g, ' '), part: 'subject' });
  const transcript = isTranscript([description, ...comments]);
  const add = (text: string, part: TurnPart) => {
    if (!transcript) return void turns.push({ text, part });
    let current: Turn | undefined;
    for (const line of lines(text)) {
      const tag = tagOf(line);
      if (tag) turns.push((current = { speaker: tag.speaker, text: tag.text, part }));
      else if (current) current.text += `\n${line.trim()}`;
      else turns.push((current = { text: line.trim(), part }));
    }
  };
  if (description) add(description, 'description');
  for (const m of comments) add(m, 'comment');
  const speakers = [...new Set(turns.map((t) => t.speaker).filter((s): s is string => s !== undefined))];
  return { turns, speakers };
}
