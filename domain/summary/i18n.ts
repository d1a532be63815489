/**
 * The words a local summary frames its extract with, per request language: the labels of a
 * ticket's parts. The extract itself stays in the conversation's own language. Any other
 * language falls back to English (as ask's phrases do).
 */
import { isLanguage, type Language } from '../ask/i18n';

export interface SummaryPhrases {
  /** The customer's problem: subject and description. */
  issue: string;
  /** What was said and done about it. */
  actions: string;
  /** The last message: where the conversation stands. */
  latest: string;
}

const PHRASES: Record<Language, SummaryPhrases> = {
  en: { issue: 'Issue', actions: 'Actions', latest: 'Latest' },
  es: { issue: 'Problema', actions: 'Acciones', latest: 'Último mensaje' },
  fr: { issue: 'Problème', actions: 'Actions', latest: 'Dernier message' },
  de: { issue: 'Problem', actions: 'Maßnahmen', latest: 'Zuletzt' },
  pt: { issue: 'Problema', actions: 'Ações', latest: 'Última mensagem' },
  it: { issue: 'Problema', actions: 'Azioni', latest: 'Ultimo messaggio' },
  nl: { issue: 'Probleem', actions: 'Acties', latest: 'Laatste bericht' },
};

/** The phrases of `code` (an ISO 639-1 code, any case, with or without a region), else English. */
export function summaryPhrases(code: string | undefined): SummaryPhrases {
  const base = code?.toLowerCase().split(/[-_]/)[0];
  return PHRASES[isLanguage(base) ? base : 'en'];
}
