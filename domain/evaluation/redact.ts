/**
 * Redaction of personal data and secrets, before a logged call is stored (spec, "Data handling for
 * evaluation"). Each finding is replaced by a typed placeholder such as `[EMAIL]`; a password in a
 * URL loses only the password (`https://user:[PASSWORD]@host`), a credential assignment only its
 * value (`password=[SECRET]`). Validators keep ordinary numbers, dates and order ids intact: card
 * numbers must pass Luhn, IBANs their mod-97 check (ibantools), IP addresses must be well formed,
 * phone numbers must be written as phone numbers are (sensitive-data.ts).
 */
import { isIPv6 } from 'node:net';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import {
  cardSpans,
  emailSpans,
  phoneSpans,
  randomTokenSpans,
  SCHEME_NAME,
  type Span,
  TO_SCHEME,
} from './sensitive-data';

export const PLACEHOLDERS = {
  privateKey: '[PRIVATE_KEY]',
  jwt: '[JWT]',
  password: '[PASSWORD]',
  apiKey: '[API_KEY]',
  secret: '[SECRET]',
  email: '[EMAIL]',
  iban: '[IBAN]',
  card: '[CARD_NUMBER]',
  nationalId: '[NATIONAL_ID]',
  ip: '[IP_ADDRESS]',
  phone: '[PHONE]',
} as const;

export type RedactionType = keyof typeof PLACEHOLDERS;

interface Finding extends Span {
  type: RedactionType;
}

/** Matches of `re` (or of its capture group `group`), kept when `accept` says so. */
const matches = (
  text: string,
  re: RegExp,
  type: RedactionType,
  o: { group?: number; accept?: (s: string) => boolean } = {},
): Finding[] =>
  [...text.matchAll(new RegExp(re.source, `${re.flags}d`))].flatMap((m) => {
    const [start, end] = m.indices![o.group ?? 0] ?? [];
    if (start === undefined || (o.accept && !o.accept(text.slice(start, end)))) return [];
    return [{ start, end, text: text.slice(start, end), type }];
  });

const API_KEYS = [
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{30,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b/g,
  /\bsai_[0-9a-f]{8}_[A-Za-z0-9_-]{32}\b/g,
];

/** US social security numbers and UK national insurance numbers. */
const NATIONAL_IDS = [
  /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g,
  /\b(?![DFIQUV])[A-CEGHJ-PR-TW-Z](?![DFIQUVO])[A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g,
];

const IPV4 = /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.]|\.\d)/g;
const IPV6 = /(?<![\w:])(?:[0-9a-f]{1,4}:){2,7}:?[0-9a-f]{0,4}(?::[0-9a-f]{1,4})*(?![\w:])/gi;
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g;

function findings(text: string): Finding[] {
  return [
    ...matches(text, /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, 'privateKey'),
    ...matches(text, /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, 'jwt'),
    ...matches(text, new RegExp(String.raw`${TO_SCHEME}${SCHEME_NAME}:\/\/[^\s:/@]+:([^\s@/]+)@`, 'gi'), 'password', {
      group: 2,
    }),
    ...API_KEYS.flatMap((re) => matches(text, re, 'apiKey')),
    ...matches(text, /\bBearer\s+([A-Za-z0-9._~+/-]{20,}=*)/g, 'secret', { group: 1 }),
    ...matches(
      text,
      /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\b["']?\s*[:=]\s*["']?([^\s"'<>,;]{6,})/gi,
      'secret',
      { group: 1 },
    ),
    ...randomTokenSpans(text).map((s) => ({ ...s, type: 'secret' as const })),
    ...emailSpans(text).map((s) => ({ ...s, type: 'email' as const })),
    ...matches(text, IBAN, 'iban', { accept: (s) => isValidIBAN(electronicFormatIBAN(s) ?? '') }),
    ...cardSpans(text).map((s) => ({ ...s, type: 'card' as const })),
    ...NATIONAL_IDS.flatMap((re) => matches(text, re, 'nationalId')),
    ...matches(text, IPV4, 'ip'),
    ...matches(text, IPV6, 'ip', {
      accept: (s) => isIPv6(s) && (s.match(/:/g) ?? []).length >= 2 && /[0-9a-f]{1,4}:[0-9a-f]{0,4}:/i.test(s),
    }),
    ...phoneSpans(text).map((s) => ({ ...s, type: 'phone' as const })),
  ];
}

export interface Redaction {
  text: string;
  /** How many of each type were replaced. */
  counts: Partial<Record<RedactionType, number>>;
}

const RANK = new Map(Object.keys(PLACEHOLDERS).map((type, i) => [type, i]));

/**
 * The text with every finding replaced; where findings overlap, the first listed kind, then the
 * longer, wins. Which characters are already taken is kept per character, so resolving overlaps
 * costs the findings' total length (each detector's findings do not overlap one another).
 */
export function redact(text: string): Redaction {
  const all = findings(text).sort(
    (a, b) => RANK.get(a.type)! - RANK.get(b.type)! || b.end - b.start - (a.end - a.start),
  );
  const taken = new Uint8Array(text.length);
  const kept: Finding[] = [];
  for (const f of all) {
    if (taken.subarray(f.start, f.end).includes(1)) continue;
    taken.fill(1, f.start, f.end);
    kept.push(f);
  }
  kept.sort((a, b) => a.start - b.start);
  const counts: Redaction['counts'] = {};
  let out = '';
  let at = 0;
  for (const f of kept) {
    out += text.slice(at, f.start) + PLACEHOLDERS[f.type];
    at = f.end;
    counts[f.type] = (counts[f.type] ?? 0) + 1;
  }
  return { text: out + text.slice(at), counts };
}
