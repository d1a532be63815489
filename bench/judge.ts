/**
 * `npm run bench:judge [-- options]`: the built-in judge of the evaluate feature on IFEval. No
 * stack is needed: the judge is a pure function.
 *
 * Each of the 540 prompts that have a GPT-4 response and strict verdicts is graded with one
 * plain-English rule per instruction; each outcome is compared with the official checker's
 * verdict (`follow_instruction_list`). Reported: agreement over the instructions the judge could
 * grade, the share it could not grade (`not_applicable`), both per instruction type, and the
 * disagreements. The rules come from the project's phrasing (bench/lib/ifeval-rules.ts) unless
 * `--rules <file.jsonl>` gives other phrasings (`{"key", "index", "description"}` per line); the
 * alternative phrasing is always scored too, to show how the reader copes with other wording.
 *
 * Writes bench/results/judge.json (or `--out`); docs/benchmarks.md describes the protocol.
 */
import { Command, Option } from 'commander';
import path from 'node:path';
import { gradeRule } from '../domain/evaluation/builtin-judge';
import {
  type IfevalItem,
  loadIfeval,
  type Phrasing,
  readRulesFile,
  renderRules,
  type RuleLine,
  writeRulesFile,
} from './lib/ifeval-rules';
import { progress } from './lib/progress';
import { loadFreshRules } from './lib/fresh-rules';
import { isTuningRule, rewordRules } from './lib/reword';
import { onTopicScores } from './lib/on-topic';
import { sameLanguageScores } from './lib/same-language';
import { DEFAULT_DATASETS, REPO_ROOT, resolveDatasets, round, runInfo, writeResult } from './lib/run-info';

const MAX_DISAGREEMENTS = 200;

interface Graded {
  key: number;
  index: number;
  type: string;
  rule: string;
  reference: boolean;
  outcome: 'pass' | 'fail' | 'not_applicable';
  explanation: string;
}

function grade(items: IfevalItem[], rules: RuleLine[], label: string): Graded[] {
  const byId = new Map(rules.map((r) => [`${r.key}:${r.index}`, r.description]));
  const total = items.reduce((n, it) => n + it.instructions.length, 0);
  const bar = progress(`[judge] ${label}`, total, { every: 200 });
  const out: Graded[] = [];
  for (const item of items) {
    const messages = [{ role: 'user', content: item.prompt }];
    for (const ins of item.instructions) {
      const rule = byId.get(`${item.key}:${ins.index}`);
      const r =
        rule === undefined
          ? { outcome: 'not_applicable' as const, explanation: 'no rule text for this instruction in the rules file' }
          : gradeRule({ id: `${item.key}:${ins.index}`, description: rule }, { messages, output: item.response });
      out.push({
        key: item.key,
        index: ins.index,
        type: ins.id,
        rule: rule ?? '',
        reference: ins.reference,
        outcome: r.outcome,
        explanation: r.explanation,
      });
      bar.tick();
    }
  }
  bar.stop();
  return out;
}

function summary(graded: Graded[]) {
  const gradable = graded.filter((g) => g.outcome !== 'not_applicable');
  const agree = gradable.filter((g) => (g.outcome === 'pass') === g.reference).length;
  return {
    n: graded.length,
    /** null when nothing could be graded. */
    agreement: gradable.length ? round(agree / gradable.length) : null,
    not_gradable: round(graded.length ? (graded.length - gradable.length) / graded.length : 0),
  };
}

function details(graded: Graded[]) {
  const types = [...new Set(graded.map((g) => g.type))].sort();
  const gradable = graded.filter((g) => g.outcome !== 'not_applicable');
  const refFail = gradable.filter((g) => !g.reference);
  const ourFail = gradable.filter((g) => g.outcome === 'fail');
  const bothFail = ourFail.filter((g) => !g.reference).length;
  const byPrompt = new Map<number, Graded[]>();
  for (const g of graded) byPrompt.set(g.key, [...(byPrompt.get(g.key) ?? []), g]);
  const prompts = [...byPrompt.values()];
  const disagreements = gradable.filter((g) => (g.outcome === 'pass') !== g.reference);
  return {
    ...summary(graded),
    gradable: gradable.length,
    fail_precision: round(ourFail.length ? bothFail / ourFail.length : 0),
    fail_recall: round(refFail.length ? bothFail / refFail.length : 0),
    instruction_accuracy: {
      judge: round(gradable.filter((g) => g.outcome === 'pass').length / Math.max(1, gradable.length)),
      reference: round(graded.filter((g) => g.reference).length / Math.max(1, graded.length)),
    },
    prompt_accuracy: {
      judge: round(prompts.filter((p) => p.every((g) => g.outcome !== 'fail')).length / Math.max(1, prompts.length)),
      reference: round(prompts.filter((p) => p.every((g) => g.reference)).length / Math.max(1, prompts.length)),
    },
    per_type: Object.fromEntries(types.map((t) => [t, summary(graded.filter((g) => g.type === t))])),
    disagreements_total: disagreements.length,
    disagreements: disagreements.slice(0, MAX_DISAGREEMENTS).map((g) => ({
      key: g.key,
      instruction: g.type,
      rule: g.rule,
      judge: g.outcome,
      reference: g.reference ? 'pass' : 'fail',
      explanation: g.explanation,
    })),
    not_gradable_rules: graded
      .filter((g) => g.outcome === 'not_applicable')
      .slice(0, MAX_DISAGREEMENTS)
      .map((g) => ({ key: g.key, instruction: g.type, rule: g.rule })),
  };
}

const summaryLine = (s: ReturnType<typeof summary>) => ({
  n: s.n,
  agreement: s.agreement,
  not_gradable: s.not_gradable,
});

/**
 * Each language's fresh wording (bench/lib/fresh-rules.ts), graded and split by prompt key: the
 * tuning half in detail (per type, its disagreements and unread rules), the held-out half as
 * summaries (per type too: counts, no rule texts).
 */
function freshResults(items: IfevalItem[]) {
  return Object.fromEntries(
    loadFreshRules().map(({ language, rules }) => {
      const graded = grade(items, rules, `fresh ${language} wording`);
      const tuning = details(graded.filter(isTuningRule));
      const heldout = graded.filter((g) => !isTuningRule(g));
      const types = [...new Set(heldout.map((g) => g.type))].sort();
      return [
        language,
        {
          rules: rules.length,
          tuning: { part: 'even prompt keys', ...tuning },
          heldout: {
            part: 'odd prompt keys',
            ...summary(heldout),
            per_type: Object.fromEntries(types.map((t) => [t, summary(heldout.filter((g) => g.type === t))])),
          },
        },
      ];
    }),
  );
}

async function main() {
  const program = new Command()
    .description('Agreement of the built-in judge with the strict IFEval reference verdicts on the GPT-4 responses.')
    .option('--datasets <dir>', 'folder holding the dataset folders', DEFAULT_DATASETS)
    .option(
      '--rules <file>',
      'JSONL rules file ({"key", "index", "description"} per line) to grade with instead of a built-in phrasing',
    )
    .addOption(
      new Option('--phrasing <name>', 'built-in phrasing to grade with when no --rules file is given')
        .choices(['project', 'alt', 'heldout'])
        .default('project'),
    )
    .option('--write-rules <file>', 'write the selected built-in phrasing as a rules file and exit')
    .option('--out <file>', 'result file', 'bench/results/judge.json')
    .option('--no-local-graders', 'leave out the same-language and on-topic graders (no embedding server needed)')
    .parse();
  const o = program.opts<{
    datasets: string;
    rules?: string;
    phrasing: Phrasing;
    writeRules?: string;
    out: string;
    localGraders: boolean;
  }>();
  const items = loadIfeval(resolveDatasets(o.datasets));
  if (o.writeRules) {
    writeRulesFile(path.resolve(process.cwd(), o.writeRules), renderRules(items, o.phrasing));
    console.log(
      `[judge] wrote ${renderRules(items, o.phrasing).length} rules (${o.phrasing} phrasing) to ${o.writeRules}`,
    );
    return;
  }
  const info = runInfo();
  const started = Date.now();
  const selected = o.rules ? readRulesFile(path.resolve(process.cwd(), o.rules)) : renderRules(items, o.phrasing);
  const rulesFile = o.rules ? path.resolve(process.cwd(), o.rules) : undefined;
  const inRepo = rulesFile && !path.relative(REPO_ROOT, rulesFile).startsWith('..');
  const rulesLabel = rulesFile
    ? inRepo
      ? path.relative(REPO_ROOT, rulesFile)
      : path.basename(rulesFile)
    : `built-in ${o.phrasing} phrasing`;
  const main = details(grade(items, selected, rulesLabel));
  const others = (['project', 'alt', 'heldout'] as const).filter((p) => o.rules || p !== o.phrasing);
  const phrasings = Object.fromEntries(
    others.map((p) => [p, summary(grade(items, renderRules(items, p), `${p} phrasing`))]),
  );
  // The mechanical rewording (bench/lib/reword.ts): the tuning half's unread rules are shown, the test half's are not.
  const reworded = grade(items, rewordRules(items), 'reworded phrasing');
  const rewordedTuning = reworded.filter(isTuningRule);
  const fresh = freshResults(items);
  const seconds = (Date.now() - started) / 1000;
  const alt =
    o.rules || o.phrasing !== 'alt'
      ? phrasings.alt
      : { n: main.n, agreement: main.agreement, not_gradable: main.not_gradable };
  const result = {
    benchmark: 'IFEval strict verdicts on the GPT-4 responses, graded by the built-in judge (builtin-rules-v1)',
    rules: rulesLabel,
    prompts: items.length,
    instructions: main.n,
    agreement: main.agreement,
    not_gradable: main.not_gradable,
    goals: { agreement: 0.97, not_gradable: 0.03 },
    alt_phrasing: { agreement: alt.agreement, not_gradable: alt.not_gradable },
    phrasings,
    reworded: {
      method: 'mechanical edits of the project, alt and heldout wordings (bench/lib/reword.ts)',
      tuning: { part: 'even prompt keys', ...summary(rewordedTuning) },
      test: { part: 'odd prompt keys', ...summary(reworded.filter((g) => !isTuningRule(g))) },
      not_gradable_tuning_rules: rewordedTuning
        .filter((g) => g.outcome === 'not_applicable')
        .map((g) => ({ key: g.key, instruction: g.type, rule: g.rule })),
    },
    fresh: {
      method:
        "IFEval instructions worded afresh, one file per language (bench/data/ifeval-fresh/README.md), each rule written from the instruction type and its arguments without the reader's phrasings",
      split:
        'tuning half: even prompt keys (its unread rules and disagreements are listed); held-out half: odd prompt keys (summaries only)',
      sets: fresh,
    },
    /** The held-out half of each language's fresh wording: the figure the goals are judged on. */
    languages: Object.fromEntries(
      Object.entries(fresh).map(([language, set]) => [
        language,
        { agreement: set.heldout.agreement, not_gradable: set.heldout.not_gradable },
      ]),
    ),
    seconds: round(seconds, 2),
    gradable: main.gradable,
    fail_precision: main.fail_precision,
    fail_recall: main.fail_recall,
    instruction_accuracy: main.instruction_accuracy,
    prompt_accuracy: main.prompt_accuracy,
    per_type: main.per_type,
    disagreements_total: main.disagreements_total,
    disagreements: main.disagreements,
    not_gradable_rules: main.not_gradable_rules,
    local_graders: o.localGraders
      ? {
          same_language: sameLanguageScores(items),
          on_topic: await onTopicScores(resolveDatasets(o.datasets)),
          polite: {
            graded_locally: false,
            reason:
              'no dataset here labels politeness, so no local method could be measured: the rule is left to a model judge (not_applicable without one)',
          },
        }
      : 'left out (--no-local-graders)',
    run: info,
  };
  for (const [language, set] of Object.entries(fresh))
    console.log(
      `[judge] fresh ${language}: tuning half ${JSON.stringify(summaryLine(set.tuning))}; held-out half ${JSON.stringify(summaryLine(set.heldout))}`,
    );
  console.log(
    `[judge] reworded: tuning half ${JSON.stringify(result.reworded.tuning)}; test half ${JSON.stringify(result.reworded.test)}`,
  );
  console.log(
    `[judge] ${rulesLabel}: agreement ${main.agreement} over ${main.gradable} gradable, not gradable ${main.not_gradable}; alt phrasing: agreement ${alt.agreement}, not gradable ${alt.not_gradable}`,
  );
  writeResult(o.out, result);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
