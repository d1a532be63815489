/**
 * The work the worker's CPU threads run (pool.ts): pure functions over tenant text that can take
 * long on one large input (grading with the built-in judge, redacting what a batch stores, fitting
 * a tenant's tag model). In a thread of their own they never block the worker's event loop, so its
 * heartbeats, its workflow tasks and every other tenant's activities go on; a thread past its
 * budget is terminated. Each export takes one structured-clonable object and returns one.
 */
import { moved } from './moved';
import { gradeWithBuiltinJudge, type JudgeRule } from '../evaluation/builtin-judge';
import type { CheckContext } from '../evaluation/checks';
import { redact, type Redaction } from '../evaluation/redact';
import type { Grading } from '../evaluation/results';
import { fitTagModel, type TagModel, type TagTrainingInputs } from '../tags/model';
import { prepareArticle as prepare, type PreparedArticle } from '../text/article-text';

export function gradeBuiltin(input: CheckContext & { rules: JudgeRule[] }): Grading {
  return gradeWithBuiltinJudge(input);
}

export function redactTexts(input: { texts: string[] }): Redaction[] {
  return input.texts.map((text) => redact(text));
}

/** The fit of a tag training (tags/train.ts reads its inputs first); the model's weights are moved back, not copied. */
export async function trainTags(input: TagTrainingInputs): Promise<TagModel> {
  const model = await fitTagModel(input);
  const { mean, scale, softmax: s } = model;
  return moved(model, [mean, scale, s.denseWeights, s.sparseWeights, s.bias]);
}

/** An article's passages and language before it is embedded (weaviate/ingest.ts): one article per task, so one budget each. */
export function prepareArticle(input: { title: string; body: string; language?: string }): PreparedArticle {
  return prepare(input);
}

export type CpuTasks = {
  gradeBuiltin: typeof gradeBuiltin;
  redactTexts: typeof redactTexts;
  trainTags: typeof trainTags;
  prepareArticle: typeof prepareArticle;
};
