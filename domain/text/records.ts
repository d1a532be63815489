/**
 * The searchable text of cases and incidents.
 */
import type { Case } from '../contracts/case';
import type { IncidentUpload } from '../contracts/incident';

/** Characters of a record's text that go into its embedding (E5-small reads ~512 tokens). */
export const EMBEDDING_CHARS = 2000;

/**
 * The part of a text that is embedded: its first `maxChars` characters, never half a surrogate
 * pair. The embedding server reads a longer text window by window, so an uncut text would cost
 * time in proportion to its length.
 */
export function embeddedPart(text: string, maxChars = EMBEDDING_CHARS): string {
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}

export interface CaseText {
  /** Public comments, one per paragraph, in upload order. */
  publicComments: string;
  /** Private comments: stored, never searched or shown. */
  privateComments: string;
  /** What the case's vector is computed from. */
  embedding: string;
}

/** What caseText reads of a case: its subject, description, and its comments' text and visibility. */
export type CaseTextInput = Pick<Case, 'subject' | 'description'> & {
  comments?: Pick<NonNullable<Case['comments']>[number], 'comment' | 'isPublic'>[];
};

/** A comment without `isPublic` counts as public, as helpdesks default to. */
export function caseText(c: CaseTextInput): CaseText {
  const comments = c.comments ?? [];
  const publicComments = comments
    .filter((m) => m.isPublic !== false)
    .map((m) => m.comment.trim())
    .join('\n\n');
  const privateComments = comments
    .filter((m) => m.isPublic === false)
    .map((m) => m.comment.trim())
    .join('\n\n');
  const embedding = embeddedPart([c.subject, c.description, publicComments].filter(Boolean).join('\n'));
  return { publicComments, privateComments, embedding };
}

/** Name, status, affected components and the timeline of updates, oldest first. */
export function incidentText(record: IncidentUpload): string {
  const { incident, components, updates } = record;
  const lines = [incident.name ?? '', incident.status ? `Status: ${incident.status}` : ''];
  const names = components.map((c) => c.name).filter(Boolean);
  if (names.length) lines.push(`Components: ${names.join(', ')}`);
  const timeline = [...updates].sort((a, b) => String(a.created_at ?? '').localeCompare(String(b.created_at ?? '')));
  for (const u of timeline) lines.push([u.created_at, u.status, u.body].filter(Boolean).join(' — '));
  return lines.filter(Boolean).join('\n');
}
