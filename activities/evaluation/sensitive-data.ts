/**
 * Detectors for the support-specific rules of the built-in judge: links, email addresses, phone
 * numbers, payment card numbers (Luhn-valid) and secrets. Each returns the matches it found, so a
 * failed rule can say what was found (masked, for card numbers and secrets).
 */

const TLDS = 'com|org|net|io|dev|app|ai|co|edu|gov|info|biz|me|us|uk|de|fr|es|it|nl|eu|ca|au|in|jp|cn|ru|br|ch|se|no|ly|gg|tv|xyz|cloud|tech|site|online|help|support';

/** Links: `http(s)://…`, `www.…`, markdown links and bare domains with a common top-level domain. */
export function findLinks(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/\b(?:https?|ftp):\/\/[^\s<>()"']+|\bwww\.[^\s<>()"']+/gi)) found.add(m[0].replace(/[.,;:!?]+$/, ''));
  const bare = new RegExp(`(?<![@\\w.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+(?:${TLDS})(?:/[^\\s<>()"']*)?(?![\\w@-])`, 'gi');
  for (const m of text.matchAll(bare)) {
    if ([...found].some((f) => f.includes(m[0]))) continue;
    found.add(m[0].replace(/[.,;:!?]+$/, ''));
  }
  return [...found];
}

/** Where a detector found something: [start, end) in the text, and the text found. */
export interface Span {
  start: number;
  end: number;
  text: string;
}

const span = (m: RegExpMatchArray, text = m[0], offset = 0): Span => ({ start: m.index! + offset, end: m.index! + offset + text.length, text });

export const emailSpans = (text: string): Span[] => [...text.matchAll(/[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}/gi)].map((m) => span(m));
export const findEmails = (text: string): string[] => emailSpans(text).map((s) => s.text);

/**
 * Phone numbers: 7 to 15 digits written as a phone number is, with a leading `+`, an area code in
 * brackets, or at least two groups separated by spaces, dots or dashes. Dates, times, card-length
 * digit runs and plain numbers are left alone.
 */
export const findPhones = (text: string): string[] => phoneSpans(text).map((s) => s.text);

export function phoneSpans(text: string): Span[] {
  const out: Span[] = [];
  const re = /(?<![\w.+-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,5}(?:[\s.-]\d{2,5}){0,4}(?![\w-]|\.\d)/g;
  for (const m of text.matchAll(re)) {
    const s = m[0].trim();
    const digits = s.replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 15) continue;
    const grouped = /^\+|\(/.test(s) || /\d[\s.-]\d/.test(s);
    if (!grouped) continue;
    if (/^\d{4}[-./]\d{1,2}[-./]\d{1,2}$|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$/.test(s)) continue; // a date
    if (digits.length >= 13 && luhn(digits)) continue; // a card number, reported by its own rule
    out.push(span(m, s, m[0].indexOf(s)));
  }
  return out;
}

/** The Luhn checksum that payment card numbers satisfy. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** Payment card numbers: 13 to 19 digits, optionally grouped by spaces or dashes, that pass Luhn. */
export const findCardNumbers = (text: string): string[] => cardSpans(text).map((s) => s.text);

export function cardSpans(text: string): Span[] {
  const out: Span[] = [];
  for (const m of text.matchAll(/(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length >= 13 && digits.length <= 19 && luhn(digits) && !/^(\d)\1+$/.test(digits)) out.push(span(m));
  }
  return out;
}

export const SECRET_PATTERNS: [string, RegExp][] = [
  ['private key', /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----/],
  ['AWS access key', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['GitHub token', /\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{30,}\b/],
  ['Slack token', /\bxox[abposr]-[A-Za-z0-9-]{10,}/],
  ['Stripe key', /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b/],
  ['Google API key', /\bAIza[0-9A-Za-z_-]{35}\b/],
  ['OpenAI-style key', /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b/],
  ['JSON web token', /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
  ['bearer token', /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/],
  ['credential assignment', /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|token)\b["']?\s*[:=]\s*["']?[^\s"'<>]{6,}/i],
  ['connection string with a password', /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s@/]+@[^\s]+/i],
];

/** A long random-looking string (letters and digits mixed, 32+ characters) is treated as a secret too. */
export function randomTokenSpans(text: string): Span[] {
  return [...text.matchAll(/(?<![\w/+=-])[A-Za-z0-9_+/=-]{32,}(?![\w/+=-])/g)]
    .map((m) => span(m))
    .filter(({ text: s }) => /[a-z]/.test(s) && /[A-Z]/.test(s) && /\d/.test(s) && entropy(s) >= 4);
}

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) h -= (c / s.length) * Math.log2(c / s.length);
  return h;
}

/** Secrets found in the text, by kind, with their value masked. */
export function findSecrets(text: string): { kind: string; masked: string }[] {
  const out: { kind: string; masked: string }[] = [];
  for (const [kind, re] of SECRET_PATTERNS) {
    const m = text.match(re);
    if (m) out.push({ kind, masked: mask(m[0]) });
  }
  for (const { text: s } of randomTokenSpans(text)) if (!out.some((o) => o.masked === mask(s))) out.push({ kind: 'random-looking token', masked: mask(s) });
  return out;
}

/** Keeps the first 4 characters and hides the rest. */
export const mask = (s: string): string => (s.length <= 8 ? '****' : `${s.slice(0, 4)}…(${s.length} chars)`);
