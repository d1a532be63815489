/**
 * Bounded strings (CHAT_BOUNDED_STRINGS): a reply's free-text strings get a `maxLength` in the JSON
 * Schema sent with the call, so a server whose constrained decoding honours it (llama.cpp) closes
 * the string, and the JSON, before the call's token bound, where a small model that rambles or
 * loops would otherwise run into `max_tokens` and leave an unreadable reply. OpenAI's strict mode
 * refuses `maxLength`, hence the setting.
 *
 * The strings of a reply share 2 characters per token of the bound: at about 3.3 characters per
 * token of English text that is 60 % of the tokens, the rest for the JSON around them. A string the
 * limit ended is cut back to its last whole sentence, and paragraphs and sentences a reply repeats
 * word for word are kept once (what a looping model leaves).
 */

/** Characters of free text per token of the call's bound, shared by the reply's strings. */
export const CHARS_PER_TOKEN = 2;

/** No string gets less room than this. */
const MIN_CHARS = 40;

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string of the schema the model writes freely: typed string, without an enum, a const or a bound of its own. */
const isFreeString = (s: Schema) =>
  s.type === 'string' && s.enum === undefined && s.const === undefined && s.maxLength === undefined;

/** How many free strings a reply of `schema` holds at most (an array counts its `maxItems`, or 1). */
export function freeStrings(schema: unknown): number {
  if (Array.isArray(schema)) return schema.reduce((n: number, s) => n + freeStrings(s), 0);
  if (!isObject(schema)) return 0;
  if (isFreeString(schema)) return 1;
  if (Array.isArray(schema.anyOf)) return Math.max(0, ...schema.anyOf.map(freeStrings));
  let n = 0;
  if (isObject(schema.properties)) n += freeStrings(Object.values(schema.properties));
  if (schema.items !== undefined) n += freeStrings(schema.items) * (Number(schema.maxItems) || 1);
  return n;
}

/** The longest a free string may be in a reply of `schema` bounded by `maxTokens`; undefined when it has none. */
export function stringLimit(schema: Schema, maxTokens: number): number | undefined {
  const n = freeStrings(schema);
  return n === 0 ? undefined : Math.max(MIN_CHARS, Math.floor((maxTokens * CHARS_PER_TOKEN) / n));
}

/** A copy of `schema` with `maxLength: limit` on each free string. */
export function withStringLimit(schema: unknown, limit: number): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withStringLimit(s, limit));
  if (!isObject(schema)) return schema;
  if (isFreeString(schema)) return { ...schema, maxLength: limit };
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === 'enum' || k === 'const' ? v : withStringLimit(v, limit)]),
  );
}

/** Ends of sentences: . ! ? (and closing quotes or brackets) before a blank or the end. */
const SENTENCE_END = /[.!?]["'”’)\]]*(?=\s|$)/g;

/** The text up to its last whole sentence, when that keeps at least a third of it; otherwise up to its last blank. */
export function lastWholeSentence(text: string): string {
  let end = -1;
  for (const m of text.matchAll(SENTENCE_END)) end = m.index + m[0].length;
  if (end >= text.length / 3) return text.slice(0, end);
  const blank = text.search(/\s\S*$/);
  return blank > 0 ? text.slice(0, blank) : text;
}

const key = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** Sentences this short ("1.", "Yes.") may repeat: only longer ones are dropped as repeats. */
const MIN_REPEAT_CHARS = 20;

/** The text with each paragraph and each sentence it repeats word for word (case and blanks aside) kept once. */
export function withoutRepeats(text: string): string {
  const seen = new Set<string>();
  const paragraphs: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    if (seen.has(key(paragraph))) continue;
    seen.add(key(paragraph));
    // Sentences with the blanks after them, so what is kept keeps its own spacing.
    const parts = paragraph.split(/(?<=[.!?])(\s+)/);
    let kept = '';
    for (let i = 0; i < parts.length; i += 2) {
      const sentence = parts[i];
      const k = key(sentence);
      if (k.length >= MIN_REPEAT_CHARS && seen.has(`s:${k}`)) continue;
      seen.add(`s:${k}`);
      kept += sentence + (parts[i + 1] ?? '');
    }
    if (kept.trim()) paragraphs.push(kept.trimEnd());
  }
  return paragraphs.join('\n\n');
}

/** A string of a reply: cut back to a whole sentence when it reached `limit`, its repeats kept once. */
export const tidyString = (text: string, limit: number) =>
  withoutRepeats(text.length >= limit ? lastWholeSentence(text) : text);

/** Every string of a parsed reply, tidied. */
export function tidyStrings(value: unknown, limit: number): unknown {
  if (typeof value === 'string') return tidyString(value, limit);
  if (Array.isArray(value)) return value.map((v) => tidyStrings(v, limit));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tidyStrings(v, limit)]));
  return value;
}
