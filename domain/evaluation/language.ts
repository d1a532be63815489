/**
 * Language of a response for the built-in judge: the writing system decides when it belongs to one
 * language (Tamil, Thai, Korean …); Devanagari is told apart (Hindi, Marathi, Nepali) and Swahili is
 * recognised by their commonest words; everything else goes to tinyld, and in the Latin script only
 * when the text backs its answer (text/language.ts): otherwise the language cannot be told.
 */
import { detectAll } from 'tinyld';
import { decideLanguage, languageEvidence } from '../text/language';

/** Language names (English and a few native or alternative names) to ISO 639-1 codes. */
export const LANGUAGE_CODES: Record<string, string> = {
  english: 'en',
  spanish: 'es',
  castilian: 'es',
  portuguese: 'pt',
  arabic: 'ar',
  hindi: 'hi',
  french: 'fr',
  russian: 'ru',
  german: 'de',
  japanese: 'ja',
  italian: 'it',
  bengali: 'bn',
  bangla: 'bn',
  ukrainian: 'uk',
  thai: 'th',
  urdu: 'ur',
  tamil: 'ta',
  telugu: 'te',
  bulgarian: 'bg',
  korean: 'ko',
  polish: 'pl',
  hebrew: 'he',
  persian: 'fa',
  farsi: 'fa',
  vietnamese: 'vi',
  nepali: 'ne',
  swahili: 'sw',
  kiswahili: 'sw',
  kannada: 'kn',
  marathi: 'mr',
  gujarati: 'gu',
  punjabi: 'pa',
  panjabi: 'pa',
  malayalam: 'ml',
  finnish: 'fi',
  chinese: 'zh',
  mandarin: 'zh',
  dutch: 'nl',
  swedish: 'sv',
  norwegian: 'no',
  danish: 'da',
  turkish: 'tr',
  greek: 'el',
  czech: 'cs',
  romanian: 'ro',
  hungarian: 'hu',
  indonesian: 'id',
  tagalog: 'tl',
  filipino: 'tl',
  croatian: 'hr',
  serbian: 'sr',
  slovak: 'sk',
  lithuanian: 'lt',
  latvian: 'lv',
  estonian: 'et',
  icelandic: 'is',
  irish: 'ga',
  afrikaans: 'af',
  latin: 'la',
  esperanto: 'eo',
  amharic: 'am',
  armenian: 'hy',
  georgian: 'ka',
  kazakh: 'kk',
  mongolian: 'mn',
  khmer: 'km',
  burmese: 'my',
  sinhala: 'si',
  macedonian: 'mk',
  belarusian: 'be',
  yiddish: 'yi',
  español: 'es',
  français: 'fr',
  deutsch: 'de',
};

const NAMES: Record<string, string> = Object.fromEntries(
  Object.entries(LANGUAGE_CODES)
    .filter(([name]) => /^[a-z]+$/.test(name))
    .reverse()
    .map(([name, code]) => [code, name[0].toUpperCase() + name.slice(1)]),
);

/** The English name of a language code (`es` → Spanish). */
export const languageName = (code: string): string => NAMES[code] ?? code;

/** Writing systems that belong to one language each (for this judge's purpose). */
const SCRIPTS: [RegExp, string][] = [
  [/\p{Script=Gurmukhi}/u, 'pa'],
  [/\p{Script=Gujarati}/u, 'gu'],
  [/\p{Script=Tamil}/u, 'ta'],
  [/\p{Script=Telugu}/u, 'te'],
  [/\p{Script=Kannada}/u, 'kn'],
  [/\p{Script=Malayalam}/u, 'ml'],
  [/\p{Script=Bengali}/u, 'bn'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Hangul}/u, 'ko'],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja'],
  [/\p{Script=Han}/u, 'zh'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Armenian}/u, 'hy'],
  [/\p{Script=Georgian}/u, 'ka'],
  [/\p{Script=Ethiopic}/u, 'am'],
  [/\p{Script=Sinhala}/u, 'si'],
  [/\p{Script=Khmer}/u, 'km'],
  [/\p{Script=Myanmar}/u, 'my'],
  [/\p{Script=Devanagari}/u, 'deva'],
];

/** The commonest function words, to tell languages apart where tinyld cannot. */
const COMMON_WORDS: Record<string, Set<string>> = {
  hi: new Set('है हैं और के की का में से को पर यह भी नहीं था थे कि एक हो लिए तो ही'.split(' ')),
  mr: new Set('आहे आणि या व हे ते आहेत मध्ये च्या ला ने की एक होते केले साठी पण नाही तर त्या'.split(' ')),
  ne: new Set('छ र को हो मा ले गर्न पनि यो छन् थियो भएको गर्छ हुन्छ लागि तर एक त्यो हुने'.split(' ')),
  sw: new Set(
    'na ya wa kwa ni za katika la kama hii huo yake wake hiyo cha pia lakini au sana kuwa ili kwamba'.split(' '),
  ),
};

function commonWordShare(text: string, code: string): number {
  const words = text.toLowerCase().match(/[\p{L}\p{M}]+/gu) ?? [];
  if (words.length === 0) return 0;
  return words.filter((w) => COMMON_WORDS[code].has(w)).length / words.length;
}

/** How close (as a share of the best score) another language may come to count as equally likely. */
const AMBIGUOUS = 0.85;

/**
 * The likely languages of a text as ISO 639-1 codes, best first: one when the text is clear, more
 * when it is too short or too mixed to tell them apart, none when it has no letters to tell by.
 */
export function detectLanguages(text: string): string[] {
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length === 0) return [];
  const counts = new Map<string, number>();
  for (const ch of letters) {
    const hit = SCRIPTS.find(([re]) => re.test(ch));
    if (hit) counts.set(hit[1], (counts.get(hit[1]) ?? 0) + 1);
  }
  let best: [string, number] | undefined;
  for (const entry of counts) if (!best || entry[1] > best[1]) best = entry;
  if (best && best[1] * 2 > letters.length) {
    if (best[0] === 'ja' || (best[0] === 'zh' && (counts.get('ja') ?? 0) > 0)) return ['ja'];
    if (best[0] !== 'deva') return [best[0]];
    const scores = (['hi', 'mr', 'ne'] as const).map((c) => [c, commonWordShare(text, c)] as const);
    return [scores.reduce((a, b) => (b[1] > a[1] ? b : a))[0]];
  }
  if (commonWordShare(text, 'sw') > 0.12) return ['sw'];
  const ranked = detectAll(text);
  if (!ranked.length) return [];
  // In the Latin script a few words look like any language: the request-language rule says whether
  // the text shows one (text/language.ts); more English function words make it English.
  const evidence = languageEvidence(text);
  if (evidence?.latin) {
    const shown = decideLanguage(evidence);
    if (shown === undefined) return [];
    if (shown === 'en' && evidence.lang !== 'en') return ['en'];
  }
  return ranked.filter((r) => r.accuracy >= ranked[0].accuracy * AMBIGUOUS).map((r) => r.lang);
}

/** The most likely language of a text, or undefined when it cannot be told. */
export const detectLanguage = (text: string): string | undefined => detectLanguages(text)[0];
