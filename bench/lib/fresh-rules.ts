/**
 * The fresh wordings of IFEval's instructions (bench/data/ifeval-fresh/, its README.md says how
 * they were written): one rules file per language, `<iso>.jsonl`, each line `{"key", "index",
 * "description"}` for one instruction of the 540 graded prompts. Like the mechanical rewording
 * (reword.ts), each set is split by prompt key: the tuning half (even keys) may be looked at to
 * improve the reader, the held-out half (odd keys) only through its summary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readRulesFile, type RuleLine } from './ifeval-rules';
import { REPO_ROOT } from './run-info';

export const FRESH_DIR = path.join(REPO_ROOT, 'bench', 'data', 'ifeval-fresh');

/** The languages operators of European helpdesks write rules in, English first. */
export const FRESH_LANGUAGES = ['en', 'es', 'de', 'fr', 'pt', 'it'] as const;
export type FreshLanguage = (typeof FRESH_LANGUAGES)[number];

/** The fresh rules of each language whose file is in `dir`. */
export function loadFreshRules(dir: string = FRESH_DIR): { language: FreshLanguage; rules: RuleLine[] }[] {
  return FRESH_LANGUAGES.filter((language) => fs.existsSync(path.join(dir, `${language}.jsonl`))).map((language) => ({
    language,
    rules: readRulesFile(path.join(dir, `${language}.jsonl`)),
  }));
}
