/**
 * The Ask response item from a composed answer. `mdText` is built from escaped text: source text
 * can never open a link, an image or raw HTML in it. `htmltext` is `mdText` rendered by
 * markdown-it with raw HTML off and its link validation on (only http/https links are built
 * here anyway), so a hostile article shows as text, never as markup or script. Bidirectional
 * formatting characters (domain/text/bidi.ts) are dropped from every text shown and percent-encoded
 * in links, before anything is built: no field can display reordered text or a disguised address.
 */
import MarkdownIt from 'markdown-it';
import { plainAnswer } from '../../domain/ask/answer';
import type { ComposedAnswer } from '../../domain/ask/compose';
import { phrases } from '../../domain/ask/i18n';
import type { AskResponse } from '../../domain/contracts/ask';
import { bidiSafeUrl, withoutBidiControls } from '../../domain/text/bidi';

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** White space within a line: a line start's `\s*` would run on across blank lines, rescanning them from each. */
const INDENT = '[^\\S\\n\\r\\u2028\\u2029]*';

/** Escapes what markdown would read as syntax: inline markers anywhere, block markers at a line start. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\`*_{}[\]()<>#|~!]/g, '\\$&')
    .replace(new RegExp(`^(${INDENT})([-+=])`, 'gm'), '$1\\$2')
    .replace(new RegExp(`^(${INDENT}\\d+)([.)])`, 'gm'), '$1\\$2');
}

const SOURCE_NAMES = {
  'ai-answer-with-kb-links': 'articles',
  'ai-answer-from-tickets': 'cases',
  'ai-answer-from-incidents': 'incidents',
  'no-answer': 'none',
} as const;

const isWebUrl = (url: string) => /^https?:\/\//i.test(url);

/** The answer as it may be shown: no bidirectional formatting character in its text, titles or links. */
const bidiSafe = (answer: ComposedAnswer): ComposedAnswer => ({
  ...answer,
  parts: answer.parts.map((part) => ({
    ...part,
    ...(part.lead === undefined ? {} : { lead: withoutBidiControls(part.lead) }),
    text: withoutBidiControls(part.text),
  })),
  used: answer.used.map((s) => ({ ...s, title: withoutBidiControls(s.title), url: bidiSafeUrl(s.url) })),
});

export function presentAnswer(input: {
  id: string;
  answer: ComposedAnswer;
  language: string;
  intentTag?: string | null;
}): AskResponse {
  const o = { ...input, answer: bidiSafe(input.answer) };
  const p = phrases(o.language);
  const links = o.answer.used.filter((s) => isWebUrl(s.url)).map((s) => ({ text: s.title, url: s.url }));
  const uniqueLinks = links.filter((l, i) => links.findIndex((m) => m.url === l.url) === i);
  if (o.answer.responseType === 'no-answer') {
    return {
      id: o.id,
      responseType: 'no-answer',
      source: 'none',
      plaintext: p.noAnswer,
      mdText: escapeMarkdown(p.noAnswer),
      htmltext: markdown.render(escapeMarkdown(p.noAnswer)),
      intentTag: o.intentTag ?? null,
      linksTitle: p.linksTitle,
      links: [],
      urls: [],
    };
  }
  const plaintext = plainAnswer(o.answer);
  const md = [
    ...o.answer.parts.map((part) =>
      [
        part.lead && `**${escapeMarkdown(part.lead)}**`,
        part.text && escapeMarkdown(part.text).replace(/\\\[(\d+(?:\s*,\s*\d+)*)\\\]/g, '[$1]'),
      ]
        .filter(Boolean)
        .join(' '),
    ),
    ...(uniqueLinks.length
      ? [
          `**${escapeMarkdown(p.linksTitle)}**`,
          uniqueLinks
            .map((l, i) => `${i + 1}. [${escapeMarkdown(l.text)}](<${l.url.replace(/[<>\s]/g, encodeURIComponent)}>)`)
            .join('\n'),
        ]
      : []),
  ].join('\n\n');
  return {
    id: o.id,
    responseType: o.answer.responseType,
    source: SOURCE_NAMES[o.answer.responseType],
    plaintext,
    mdText: md,
    htmltext: markdown.render(md),
    intentTag: o.intentTag ?? null,
    linksTitle: p.linksTitle,
    links: uniqueLinks,
    urls: uniqueLinks.map((l) => l.url),
  };
}
