/**
 * The Summary response from a draft. Markdown is built from escaped text: conversation text can
 * never open a link, an image or raw HTML in it. `html` is that markdown rendered by markdown-it
 * with raw HTML off (as ask's `htmltext`), so a hostile message shows as text, never as markup.
 */
import MarkdownIt from 'markdown-it';
import type { SummaryDraft } from '../../domain/summary/local-engine';
import type { SummaryResponse } from '../../domain/contracts/summary';
import { withoutBidiControls } from '../../domain/text/bidi';
import { escapeMarkdown } from './ask';

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

export type SummaryFormat = SummaryResponse['format'];

/** The draft as markdown: one paragraph per part, its label in bold. */
export function summaryMarkdown(draft: SummaryDraft): string {
  return draft.parts
    .map((p) => [p.label && `**${escapeMarkdown(p.label)}:**`, escapeMarkdown(p.text)].filter(Boolean).join(' '))
    .join('\n\n');
}

/** The draft as plain text (labels followed by a colon), for logs and benchmarks. */
export const summaryPlaintext = (draft: SummaryDraft) =>
  draft.parts.map((p) => (p.label ? `${p.label}: ${p.text}` : p.text)).join('\n\n');

export function presentSummary(draft: SummaryDraft, format: SummaryFormat): SummaryResponse {
  // No bidirectional formatting character of the conversation reaches the summary (domain/text/bidi.ts).
  const md = summaryMarkdown({
    ...draft,
    parts: draft.parts.map((p) => ({
      ...p,
      label: p.label && withoutBidiControls(p.label),
      text: withoutBidiControls(p.text),
    })),
  });
  return { format, summary: format === 'html' ? markdown.render(md) : md };
}
