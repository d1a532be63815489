/**
 * Detectors for the support-specific rules of the built-in judge: links, email addresses, phone
 * numbers, payment card numbers (Luhn-valid) and secrets. Each returns the matches it found, so a
 * failed rule can say what was found (masked, for card numbers and secrets).
 *
 * Every pattern runs in time linear in the text, whatever the text (a megabyte of `a`, of `a.`, of
 * `a@`): a pattern that starts with a run of characters (an email's local part, a URL's scheme)
 * starts only where such a run starts, never again at each character inside it.
 */

const TLDS =
  'com|org|net|io|dev|app|ai|co|edu|gov|info|biz|me|us|uk|de|fr|es|it|nl|eu|ca|au|in|jp|cn|ru|br|ch|se|no|ly|gg|tv|xyz|cloud|tech|site|online|help|support';

const BARE_DOMAIN = new RegExp(
  `(?<![@\\w.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+(?:${TLDS})(?:/[^\\s<>()"']*)?(?![\\w@-])`,
  'gi',
);
const withoutTrailingPunctuation = (s: string) => s.replace(/(?<![.,;:!?])[.,;:!?]+$/, '');

/**
 * Links: `http(s)://…`, `www.…`, markdown links and bare domains with a common top-level domain.
 * A bare domain inside a link already found (the host of `https://example.com/a`) is not counted
 * again, nor is a link found twice.
 */
export function findLinks(text: string): string[] {
  const found = new Set<string>();
  const spans: [number, number][] = [];
  for (const m of text.matchAll(/\b(?:https?|ftp):\/\/[^\s<>()"']+|\bwww\.[^\s<>()"']+/gi)) {
    found.add(withoutTrailingPunctuation(m[0]));
    spans.push([m.index, m.index + m[0].length]);
  }
  let next = 0;
  for (const m of text.matchAll(BARE_DOMAIN)) {
    while (next < spans.length && spans[next][1] <= m.index) next += 1;
    const inside = next < spans.length && spans[next][0] <= m.index && m.index + m[0].length <= spans[next][1];
    if (!inside) found.add(withoutTrailingPunctuation(m[0]));
  }
  return [...found];
}

/** Where a detector found something: [start, end) in the text, and the text found. */
export interface Span {
  start: number;
  end: number;
  text: string;
}

const span = (m: RegExpMatchArray, text = m[0], offset = 0): Span => ({
  start: m.index! + offset,
  end: m.index! + offset + text.length,
  text,
});

/**
 * The matches `text.matchAll(new RegExp(pattern, 'g' + flags))` returns, for a pattern that starts
 * with a run of `run` characters (`[\w.+-]+@…`), in linear time. Such a match starts where the
 * run starts, or where the previous match ended inside a run: from any later character of the run
 * it reaches the same end, so matchAll's retry at each of them (each rescanning the run) is
 * skipped by a lookbehind.
 */
function runMatches(text: string, o: { run: string; pattern: string; flags: string }): RegExpExecArray[] {
  const atRunStart = new RegExp(`(?<!${o.run})${o.pattern}`, `g${o.flags}`);
  const here = new RegExp(o.pattern, `y${o.flags}`);
  const out: RegExpExecArray[] = [];
  for (let at = 0; at < text.length;) {
    here.lastIndex = at;
    let m = at > 0 ? here.exec(text) : null;
    if (!m) {
      atRunStart.lastIndex = at;
      m = atRunStart.exec(text);
    }
    if (!m) break;
    out.push(m);
    at = m.index + Math.max(1, m[0].length);
  }
  return out;
}

export const emailSpans = (text: string): Span[] =>
  runMatches(text, { run: '[\\w.+-]', pattern: '[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)*\\.[a-z]{2,}', flags: 'i' }).map((m) =>
    span(m),
  );
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

/**
 * Where a URL scheme starts, as `\b[a-z][a-z0-9+.-]*` finds it (with the i flag), at the cost of one
 * pass over the scheme's characters when the match fails: it starts where a run of them starts and
 * skips to the run's first letter at a word boundary once (a lookahead's capture, then a
 * back-reference), so it is not retried at each letter of a long run such as `a-a-a-…`. It takes
 * capture group 1; SCHEME_NAME follows it.
 */
export const TO_SCHEME = String.raw`(?<![a-z0-9+.-])(?=([a-z0-9+.-]*?)\b[a-z])\1`;
export const SCHEME_NAME = '[a-z][a-z0-9+.-]*';

/** Kinds of secret and their patterns; a `found` group, when there is one, is what was found. */
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
  [
    'credential assignment',
    /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|token)\b["']?\s*[:=]\s*["']?[^\s"'<>]{6,}/i,
  ],
  [
    'connection string with a password',
    new RegExp(String.raw`${TO_SCHEME}(?<found>${SCHEME_NAME}:\/\/[^\s:/@]+:[^\s@/]+@[^\s]+)`, 'i'),
  ],
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
    if (m) out.push({ kind, masked: mask(m.groups?.found ?? m[0]) });
  }
  const shown = new Set(out.map((o) => o.masked));
  for (const { text: s } of randomTokenSpans(text)) {
    const masked = mask(s);
    if (shown.has(masked)) continue;
    shown.add(masked);
    out.push({ kind: 'random-looking token', masked });
  }
  return out;
}

/** Keeps the first 4 characters and hides the rest. */
export const mask = (s: string): string => (s.length <= 8 ? '****' : `${s.slice(0, 4)}…(${s.length} chars)`);
