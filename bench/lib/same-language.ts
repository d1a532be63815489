/**
 * The built-in judge's `same-language` grader (checks.ts, `same_language`) on IFEval: texts whose
 * language is known are the English prompts and the GPT-4 responses that the official checker says
 * follow a response-language instruction (`language:response_language`, strict). Pairs of them
 * play the user's message and the output:
 * - different: a prompt (English) and its response in another language; the first half of a
 *   response and the second half of a response in another language;
 * - same: a response's first half and its second half; two English prompts.
 * The grader has no parameter of its own (it reuses the judge's language identification, which
 * the response-language instructions already measure), so there is nothing to tune: both parts,
 * even prompt keys ("tuning") and odd ones ("test"), are reported, each with its accuracy over the
 * pairs it could grade and the share it could not.
 */
import { gradeRule } from '../../domain/evaluation/builtin-judge';
import type { IfevalItem } from './ifeval-rules';
import { round } from './run-info';

const RULE = "The answer is written in the same language as the user's last message.";

interface Pair {
  key: number;
  same: boolean;
  user: string;
  output: string;
}

/** A text cut at the paragraph or sentence boundary nearest its middle. */
function halves(text: string): [string, string] {
  const mid = Math.floor(text.length / 2);
  const cuts = [...text.matchAll(/\n\s*\n|[.!?。！？]\s/g)].map((m) => m.index + m[0].length);
  const at = cuts.reduce((best, c) => (Math.abs(c - mid) < Math.abs(best - mid) ? c : best), mid);
  return [text.slice(0, at).trim(), text.slice(at).trim()];
}

function pairs(items: IfevalItem[]): Pair[] {
  const known = items.flatMap((it) => {
    const ins = it.instructions.find((i) => i.id === 'language:response_language');
    return ins?.reference && ins.kwargs.language && ins.kwargs.language !== 'en'
      ? [{ key: it.key, prompt: it.prompt, lang: String(ins.kwargs.language), parts: halves(it.response) }]
      : [];
  });
  const out: Pair[] = [];
  for (const [i, r] of known.entries()) {
    out.push({ key: r.key, same: false, user: r.prompt, output: `${r.parts[0]}\n\n${r.parts[1]}` });
    out.push({ key: r.key, same: true, user: r.parts[0], output: r.parts[1] });
    const other = known.slice(i + 1).find((o) => o.lang !== r.lang);
    if (other) out.push({ key: r.key, same: false, user: r.parts[0], output: other.parts[1] });
  }
  // As many English pairs as same-language pairs of other languages: consecutive prompts.
  const english = items.filter((it) => !it.instructions.some((i) => i.id.startsWith('language:')));
  for (let i = 0; i + 1 < english.length && i < 2 * known.length; i += 2)
    out.push({ key: english[i].key, same: true, user: english[i].prompt, output: english[i + 1].prompt });
  return out;
}

function score(ps: Pair[]) {
  let gradable = 0;
  let correct = 0;
  for (const p of ps) {
    const r = gradeRule(
      { id: 'same-language', description: RULE },
      { messages: [{ role: 'user', content: p.user }], output: p.output },
    );
    if (r.outcome === 'not_applicable') continue;
    gradable += 1;
    if ((r.outcome === 'pass') === p.same) correct += 1;
  }
  return {
    n: ps.length,
    same: ps.filter((p) => p.same).length,
    accuracy: gradable ? round(correct / gradable, 4) : null,
    not_gradable: ps.length ? round(1 - gradable / ps.length, 4) : null,
  };
}

/** The grader's accuracy and not-gradable share on both parts. */
export function sameLanguageScores(items: IfevalItem[]) {
  const all = pairs(items);
  return {
    rule: RULE,
    pairs:
      'IFEval: English prompts and GPT-4 responses that follow a response-language instruction (strict), halves and pairs',
    tuning: score(all.filter((p) => p.key % 2 === 0)),
    test: score(all.filter((p) => p.key % 2 === 1)),
  };
}
