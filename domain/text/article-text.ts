/**
 * Turns an article body (HTML or markdown) into clean text sections that keep their headings,
 * then into passages of bounded size with overlap, ready to embed.
 */
import { convert, type FormatCallback } from 'html-to-text';
import MarkdownIt from 'markdown-it';
import { detect } from 'tinyld';

const markdown = new MarkdownIt({ html: true, linkify: false });
const HEADING_MARK = '\u241E'; // a character that never occurs in article text

/** Headings become their own marked line, so sections can be cut at them after conversion. */
const headingFormatter: FormatCallback = (elem, walk, builder) => {
  builder.openBlock({ leadingLineBreaks: 2 });
  builder.addInline(HEADING_MARK);
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: 2 });
};

const HTML_OPTIONS = {
  wordwrap: false as const,
  // Elements deeper than this are left out: the walk recurses once per level (MAX_HTML_DEPTH keeps real articles far above it).
  limits: { maxDepth: 1000 },
  formatters: { heading: headingFormatter },
  selectors: [
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, format: 'heading' })),
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
  ],
};

/**
 * Whether the body is HTML: a tag of these names, closed by a `>` somewhere after it. That is what
 * `/<\/?(p|…)\b[^>]*>/i` tests, without scanning to the end of a body with no `>` from every `<p`.
 */
function looksLikeHtml(body: string): boolean {
  const tag = /<\/?(p|div|h[1-6]|br|ul|ol|li|table|span|a|strong|em|section|article|pre|code)\b/i.exec(body);
  return tag !== null && body.indexOf('>', tag.index) >= 0;
}

/**
 * Nesting deeper than this is not HTML an article is written in: such a body is read as plain text
 * with its tags removed. The HTML parser keeps its open elements in an array that it adds to at the
 * front, so its cost grows with the square of the nesting (a megabyte of `<div>` took minutes).
 */
export const MAX_HTML_DEPTH = 256;
/** Elements that never hold others, or that the next one of their kind closes (a run of `<p>` is not nested). */
const NOT_NESTING = new Set(
  'area base br col embed hr img input link meta param source track wbr keygen p li dt dd tr td th option optgroup rb rt rp rtc tbody thead tfoot'.split(
    ' ',
  ),
);

/** Whether the HTML opens elements more than `limit` deep (counting tags, in one pass). */
function nestsDeeperThan(html: string, limit: number): boolean {
  let depth = 0;
  for (const tag of html.matchAll(/<(\/?)([a-z][^\s/>]*)/gi)) {
    if (NOT_NESTING.has(tag[2].toLowerCase())) continue;
    depth = tag[1] ? Math.max(0, depth - 1) : depth + 1;
    if (depth > limit) return true;
  }
  return false;
}

/** The text of HTML nested too deep to parse: tags become line breaks. */
const withoutTags = (html: string) => html.replace(/<[^<>]*>/g, '\n');

export interface Section {
  heading: string;
  text: string;
}

/** Sections of an article body, each a heading (possibly empty) and its clean text. */
export function articleSections(body: string): Section[] {
  const html = looksLikeHtml(body) ? body : markdown.render(body);
  const text = nestsDeeperThan(html, MAX_HTML_DEPTH) ? withoutTags(html) : convert(html, HTML_OPTIONS);
  const sections: Section[] = [];
  let current: Section = { heading: '', text: '' };
  for (const line of text.split('\n')) {
    if (line.startsWith(HEADING_MARK)) {
      if (current.text.trim()) sections.push(current);
      current = { heading: line.slice(HEADING_MARK.length).trim(), text: '' };
    } else {
      current.text += `${line}\n`;
    }
  }
  if (current.text.trim() || sections.length === 0) sections.push(current);
  return sections.map((s) => ({ heading: s.heading, text: s.text.replace(/\n{3,}/g, '\n\n').trim() }));
}

export interface Passage {
  heading: string;
  text: string;
}

export interface PassageOptions {
  /** Upper bound of a passage in characters (E5-small reads ~512 tokens, about 2,000 characters). */
  maxChars: number;
  /** Characters carried over from the end of one passage to the start of the next. */
  overlapChars: number;
}

export const DEFAULT_PASSAGE_OPTIONS: PassageOptions = { maxChars: 1200, overlapChars: 200 };

/** Splits text at paragraph, then sentence, then word boundaries into pieces of at most maxChars. */
function pieces(text: string, maxChars: number): string[] {
  const out: string[] = [];
  for (const unit of text.split(/\n\s*\n|(?<=[.!?])\s+/)) {
    const trimmed = unit.trim();
    if (!trimmed) continue;
    if (trimmed.length <= maxChars) {
      out.push(trimmed);
      continue;
    }
    let rest = trimmed;
    while (rest.length > maxChars) {
      const cut = rest.lastIndexOf(' ', maxChars);
      const at = cut > maxChars / 2 ? cut : maxChars;
      out.push(rest.slice(0, at).trim());
      rest = rest.slice(at).trim();
    }
    if (rest) out.push(rest);
  }
  return out;
}

/** The tail of a passage to repeat at the start of the next one, starting at a word boundary. */
function overlapTail(text: string, overlapChars: number): string {
  if (overlapChars <= 0 || text.length <= overlapChars) return overlapChars > 0 ? text : '';
  const tail = text.slice(-overlapChars);
  const space = tail.indexOf(' ');
  return space >= 0 ? tail.slice(space + 1) : tail;
}

/** Passages of a section list; every passage keeps the heading of the section it came from. */
export function toPassages(sections: Section[], options: PassageOptions = DEFAULT_PASSAGE_OPTIONS): Passage[] {
  const passages: Passage[] = [];
  for (const section of sections) {
    let current = '';
    for (const piece of pieces(section.text, options.maxChars - options.overlapChars)) {
      if (current && current.length + piece.length + 1 > options.maxChars) {
        passages.push({ heading: section.heading, text: current });
        current = overlapTail(current, options.overlapChars);
      }
      current = current ? `${current} ${piece}` : piece;
    }
    if (current || (section.heading && passages.length === 0))
      passages.push({ heading: section.heading, text: current });
  }
  return passages;
}

/** ISO 639-1 code of the text's language, or undefined when it cannot be told. */
export function detectLanguage(text: string): string | undefined {
  return detect(text.slice(0, 2000)) || undefined;
}

/** A snippet of at most maxChars, cut at a word boundary, with an ellipsis when shortened. */
export function snippet(text: string, maxChars = 300): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= maxChars) return clean;
  const cut = clean.lastIndexOf(' ', maxChars - 1);
  return `${clean.slice(0, cut > maxChars / 2 ? cut : maxChars - 1)}…`;
}

/** Whether text has a letter or a digit, in any script: something a search can match. */
const SEARCHABLE = /[\p{L}\p{N}]/u;

/** The characters language detection reads (detectLanguage reads no more). */
const LANGUAGE_SAMPLE_CHARS = 2000;

export interface PreparedArticle {
  /** The passages to store: those with a letter or a digit in their heading or text. */
  passages: Passage[];
  /** The article's language (ISO 639-1), its own or detected; '' when it cannot be told. */
  language: string;
  /** Passages left out because they had no letter or digit (nothing in them could be searched). */
  unsearchable: number;
}

/**
 * An article's passages and language, ready to embed: linear in the body's length (about 2 s for a
 * megabyte on one core), and run on a CPU thread of the worker (domain/cpu/tasks.ts). A passage
 * without a letter or a digit (a megabyte of `[`, say) has nothing a search could match and is left
 * out, so it costs no embedding.
 */
export function prepareArticle(article: { title: string; body: string; language?: string }): PreparedArticle {
  const all = toPassages(articleSections(article.body));
  const passages = all.filter((p) => SEARCHABLE.test(p.text) || SEARCHABLE.test(p.heading));
  let sample = article.title;
  for (const p of passages) {
    if (sample.length >= LANGUAGE_SAMPLE_CHARS) break;
    sample += `\n${p.text}`;
  }
  const language =
    article.language?.slice(0, 2).toLowerCase() ?? (passages.length > 0 ? detectLanguage(sample) : undefined) ?? '';
  return { passages, language, unsearchable: all.length - passages.length };
}
