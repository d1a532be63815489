/**
 * `npm run bench:language -- --corpus <dir>`: how well the request language is told from short
 * texts (domain/text/language.ts), and the tinyld score it needs when the function words do
 * not decide (`LANGUAGE_MIN_SCORE`). No stack is needed: detection is a pure function.
 *
 * Texts, all written by people, none made up here:
 * - English support questions: BANKING77 test (3,080 customer queries) and the StackFAQ queries
 *   (1,250), from the datasets folder (`--datasets`);
 * - short conversational lines in many languages: the chatterbot-corpus package (PyPI,
 *   `chatterbot-corpus` 1.3.3, BSD licence), whose `data/<language>/*.yml` folder `--corpus`
 *   names. A line of another language's folder that the English folder holds word for word is
 *   left out (some files were never translated), and so is a line without a letter.
 * Each text's language is its folder's. The default, where the text does not show a language,
 * is English here (the API's own default).
 *
 * Every text falls in the `tune` or the `test` half by a hash of its text. The score is chosen on
 * the tune half as the one that maximises the balanced accuracy: the mean of English accuracy
 * (its three sets, pooled) and the other languages' (each language's accuracy, averaged). The
 * test half reports it. Two references: tinyld's own answer (what the API did before), and a
 * threshold on tinyld's score alone, without the function words, chosen the same way.
 *
 * Writes bench/results/language.json; docs/benchmarks.md describes the protocol and the numbers.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { decideLanguage, LANGUAGE_MIN_SCORE, languageEvidence, type LanguageEvidence } from '../domain/text/language';
import { loadBanking77, loadStackFaq } from './lib/datasets';
import { DEFAULT_DATASETS, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';

/** The corpus folders read, by the language they hold (ISO 639-1). */
const CORPUS_LANGUAGES: Record<string, string> = {
  english: 'en',
  spanish: 'es',
  french: 'fr',
  german: 'de',
  italian: 'it',
  portuguese: 'pt',
  dutch: 'nl',
  swedish: 'sv',
  indonesian: 'id',
  turkish: 'tr',
  yoruba: 'yo',
  russian: 'ru',
  ukrainian: 'uk',
  hebrew: 'he',
  persian: 'fa',
  urdu: 'ur',
  hindi: 'hi',
  marathi: 'mr',
  bengali: 'bn',
  tamil: 'ta',
  telugu: 'te',
  oriya: 'or',
  thai: 'th',
  chinese: 'zh',
  traditionalchinese: 'zh',
  japanese: 'ja',
  korean: 'ko',
};
/** The issue's example: four English words tinyld called Italian. */
const EXAMPLE = 'flux capacitor broken quantum widget';
const SCORES = Array.from({ length: 21 }, (_, i) => round(i * 0.05, 2));
const WORD_BUCKETS: [string, number, number][] = [
  ['1-2', 1, 2],
  ['3-5', 3, 5],
  ['6-10', 6, 10],
  ['11+', 11, Infinity],
];

interface Text {
  set: string;
  lang: string;
  text: string;
  words: number;
  half: 'tune' | 'test';
  evidence: LanguageEvidence | undefined;
}

type Decide = (e: LanguageEvidence | undefined) => string | undefined;

const wordCount = (text: string) => (text.match(/\p{L}+/gu) ?? []).length;
const half = (text: string): Text['half'] =>
  createHash('sha256').update(text).digest()[0] % 2 === 0 ? 'tune' : 'test';

function corpusLines(dir: string, folder: string): string[] {
  const lines = new Set<string>();
  for (const file of fs
    .readdirSync(path.join(dir, folder))
    .filter((f) => f.endsWith('.yml'))
    .sort()) {
    const doc = parseYaml(fs.readFileSync(path.join(dir, folder, file), 'utf8')) as { conversations?: unknown[][] };
    for (const turn of (doc?.conversations ?? []).flat())
      if (typeof turn === 'string' && turn.trim()) lines.add(turn.trim());
  }
  return [...lines];
}

function loadTexts(o: { datasets: string; corpus: string }): Text[] {
  if (!fs.existsSync(path.join(o.corpus, 'english'))) {
    throw new Error(
      `${o.corpus} is not the chatterbot-corpus data folder (no english/ in it); see docs/benchmarks.md, "Request language"`,
    );
  }
  const english = new Set(corpusLines(o.corpus, 'english'));
  const raw: { set: string; lang: string; text: string }[] = [
    ...loadBanking77(o.datasets, 'test').map((r) => ({ set: 'banking77', lang: 'en', text: r.text })),
    ...loadStackFaq(o.datasets).queries.map((q) => ({ set: 'stackfaq', lang: 'en', text: q.text })),
  ];
  for (const [folder, lang] of Object.entries(CORPUS_LANGUAGES)) {
    if (!fs.existsSync(path.join(o.corpus, folder))) continue;
    const lines = corpusLines(o.corpus, folder).filter((t) => lang === 'en' || !english.has(t));
    raw.push(...lines.map((text) => ({ set: lang === 'en' ? 'chatterbot-en' : `chatterbot-${lang}`, lang, text })));
  }
  return raw
    .filter((t) => /\p{L}/u.test(t.text))
    .map((t) => ({ ...t, words: wordCount(t.text), half: half(t.text), evidence: undefined }));
}

/** The decision, with English where the text shows no language. */
const answer = (decide: Decide, t: Text) => decide(t.evidence) ?? 'en';
const accuracy = (decide: Decide, texts: readonly Text[]) =>
  texts.length ? texts.filter((t) => answer(decide, t) === t.lang).length / texts.length : NaN;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** English accuracy, the other languages' mean accuracy, and their mean (the objective). */
function balanced(decide: Decide, texts: readonly Text[]) {
  const english = accuracy(
    decide,
    texts.filter((t) => t.lang === 'en'),
  );
  const langs = [...new Set(texts.filter((t) => t.lang !== 'en').map((t) => t.lang))];
  const others = mean(
    langs.map((l) =>
      accuracy(
        decide,
        texts.filter((t) => t.lang === l),
      ),
    ),
  );
  return { english: round(english), others: round(others), balanced: round((english + others) / 2) };
}

/** The grid of a family of rules over the score, and the score the tune half chooses. */
function sweep(family: (score: number) => Decide, texts: readonly Text[]) {
  const tune = texts.filter((t) => t.half === 'tune');
  const test = texts.filter((t) => t.half === 'test');
  const grid = SCORES.map((score) => ({
    score,
    tune: balanced(family(score), tune),
    test: balanced(family(score), test),
  }));
  // Ties go to the lower score: it sends fewer texts to the default.
  const best = grid.reduce((a, b) => (b.tune.balanced > a.tune.balanced ? b : a));
  return { grid, chosen: best };
}

function perSet(rules: Record<string, Decide>, texts: readonly Text[]) {
  const sets = [...new Set(texts.map((t) => t.set))];
  return Object.fromEntries(
    sets.map((set) => {
      const inSet = texts.filter((t) => t.set === set);
      return [
        set,
        {
          language: inSet[0].lang,
          n: inSet.length,
          median_words: inSet.map((t) => t.words).sort((a, b) => a - b)[Math.floor(inSet.length / 2)],
          ...Object.fromEntries(Object.entries(rules).map(([name, decide]) => [name, round(accuracy(decide, inSet))])),
          default_used: round(inSet.filter((t) => rules.rule(t.evidence) === undefined).length / inSet.length),
        },
      ];
    }),
  );
}

function perWordCount(rules: Record<string, Decide>, texts: readonly Text[]) {
  return Object.fromEntries(
    WORD_BUCKETS.map(([label, lo, hi]) => {
      const inBucket = texts.filter((t) => t.words >= lo && t.words <= hi);
      const english = inBucket.filter((t) => t.lang === 'en');
      const others = inBucket.filter((t) => t.lang !== 'en');
      const row = (subset: Text[]) => ({
        n: subset.length,
        ...Object.fromEntries(Object.entries(rules).map(([name, decide]) => [name, round(accuracy(decide, subset))])),
      });
      return [label, { english: row(english), other_languages: row(others) }];
    }),
  );
}

function main() {
  const o = new Command()
    .description(
      'Request-language detection on short texts: the function-word rule, its score threshold, and tinyld alone.',
    )
    .requiredOption('--corpus <dir>', 'chatterbot-corpus\'s data folder (docs/benchmarks.md, "Request language")')
    .option('--datasets <dir>', 'folder holding the dataset folders', DEFAULT_DATASETS)
    .option('--out <file>', 'result file', 'bench/results/language.json')
    .parse()
    .opts<{ corpus: string; datasets: string; out: string }>();
  const info = runInfo();
  const texts = loadTexts({ datasets: resolveDatasets(o.datasets), corpus: path.resolve(process.cwd(), o.corpus) });
  const started = performance.now();
  for (const t of texts) t.evidence = languageEvidence(t.text);
  const detectMs = performance.now() - started;
  console.log(`[language] ${texts.length} texts detected in ${Math.round(detectMs)} ms`);

  const rule = sweep((score) => (e) => decideLanguage(e, score), texts);
  const scoreOnly = sweep((score) => (e) => (e && e.score >= score ? e.lang : undefined), texts);
  const chosen = rule.chosen.score;
  const rules: Record<string, Decide> = {
    tinyld: (e) => e?.lang,
    score_only: (e) => (e && e.score >= scoreOnly.chosen.score ? e.lang : undefined),
    rule: (e) => decideLanguage(e, chosen),
  };
  const test = texts.filter((t) => t.half === 'test');
  const example = languageEvidence(EXAMPLE);
  const result = {
    benchmark:
      'request language of short texts: English support questions (BANKING77 test, StackFAQ queries) and chatterbot-corpus lines in many languages',
    corpus: {
      package: 'chatterbot-corpus',
      version: '1.3.3',
      languages: [...new Set(texts.map((t) => t.lang))].length,
    },
    texts: { all: texts.length, tune: texts.length - test.length, test: test.length },
    objective:
      'balanced accuracy on the tune half: mean of English accuracy and the mean accuracy of the other languages; the default (English) counts where the text shows no language',
    chosen: { min_score: chosen, tune: rule.chosen.tune, test: rule.chosen.test },
    shipped: { min_score: LANGUAGE_MIN_SCORE, matches_chosen: LANGUAGE_MIN_SCORE === chosen },
    references: {
      tinyld: {
        tune: balanced(
          rules.tinyld,
          texts.filter((t) => t.half === 'tune'),
        ),
        test: balanced(rules.tinyld, test),
      },
      score_only: { min_score: scoreOnly.chosen.score, tune: scoreOnly.chosen.tune, test: scoreOnly.chosen.test },
    },
    test_half_per_set: perSet(rules, test),
    test_half_per_word_count: perWordCount(rules, test),
    example: {
      text: EXAMPLE,
      tinyld: example?.lang ?? null,
      score: example ? round(example.score) : null,
      rule: decideLanguage(example, chosen) ?? 'default',
    },
    grid: rule.grid,
    score_only_grid: scoreOnly.grid,
    detect_ms_per_text: round(detectMs / texts.length, 3),
    run: info,
  };
  console.log(
    `[language] chosen min score ${chosen} (shipped ${LANGUAGE_MIN_SCORE}); test half: English ${rule.chosen.test.english}, other languages ${rule.chosen.test.others} ` +
      `(tinyld alone ${result.references.tinyld.test.english} / ${result.references.tinyld.test.others}; score alone ${scoreOnly.chosen.test.english} / ${scoreOnly.chosen.test.others})`,
  );
  if (!result.shipped.matches_chosen)
    console.warn(`[language] LANGUAGE_MIN_SCORE is ${LANGUAGE_MIN_SCORE}; this measurement chooses ${chosen}`);
  writeResult(o.out, result);
}

main();
