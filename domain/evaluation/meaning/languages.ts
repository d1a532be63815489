/**
 * Language names in the six languages rules are written in, from the platform's own data
 * (Intl.DisplayNames, CLDR): "canarés", "Persisch", "pendjabi" and "kannada" all name `kn`, `fa`,
 * `pa`, `kn`. Only the languages the judge can tell apart (../language.ts) are named.
 */
import { LANGUAGE_CODES } from '../language';
import { LANGUAGES } from './lexicon';
import { normalise } from './tokens';

/** Other spellings in common use that neither CLDR nor the English names (LANGUAGE_CODES) give. */
const ALIASES: Record<string, string> = {
  panyabi: 'pa',
  suahili: 'sw',
};

let names: Map<string, string> | undefined;

function nameTable(): Map<string, string> {
  if (names) return names;
  names = new Map(Object.entries(ALIASES));
  for (const [name, code] of Object.entries(LANGUAGE_CODES)) if (/^[a-z]+$/.test(name)) names.set(name, code);
  const codes = [...new Set(Object.values(LANGUAGE_CODES))];
  for (const lang of LANGUAGES) {
    const display = new Intl.DisplayNames([lang], { type: 'language', fallback: 'none' });
    for (const code of codes) {
      const name = display.of(code);
      if (name && /^\p{L}+$/u.test(name)) names.set(normalise(name), code);
    }
  }
  return names;
}

/** The language code a word (normalised) names, if it names one. */
export const languageOfName = (word: string): string | undefined => nameTable().get(word);
