/** POST /v1/control/autoeval/evaluate: grade one model output against rules. */
import type { FromSchema } from 'json-schema-to-ts';
import { id, LIMITS, list, NAME_PATTERN, nonEmpty, notRule, oneOf, str } from './common';

export const RULE_SEVERITIES = ['critical', 'warning', 'info'] as const;
export const VERDICTS = ['correct', 'defect'] as const;
export const RULE_OUTCOMES = ['pass', 'fail', 'not_applicable'] as const;
/** The largest number of rules one evaluate request may carry. */
export const MAX_RULES = 100;

export const RuleSchema = {
  $id: 'Rule',
  type: 'object',
  description: 'A custom rule an output is graded against.',
  required: ['id', 'description'],
  additionalProperties: false,
  properties: {
    /** Rule identifier. */
    id: id('Rule identifier.'),
    /** What the output must or must not do, in plain English. */
    description: nonEmpty(LIMITS.query, 'Plain-English statement of what the output must or must not do.'),
    /** Report group, such as Format, Accuracy, Compliance, Tone, Custom, Language. */
    category: {
      ...str(LIMITS.label, 'Groups rules in reports, such as Format, Accuracy, Compliance, Tone, Custom, Language.'),
      default: 'Custom',
    },
    /** Severity; reports list critical failures first. */
    severity: { ...oneOf(RULE_SEVERITIES, 'Severity; reports list critical failures first.'), default: 'warning' },
  },
} as const;
export type Rule = FromSchema<typeof RuleSchema>;

export const EvaluateRequestSchema = {
  $id: 'EvaluateRequest',
  type: 'object',
  description:
    'One model call to grade: against `rules` when sent, else against the rules of `use_case`, else against ' +
    'the `default` use case. Sending both `rules` and `use_case` is a 400.',
  required: ['messages', 'output'],
  additionalProperties: false,
  ...notRule('send either /rules or /use_case, not both', { type: 'object', required: ['rules', 'use_case'] }),
  properties: {
    /** The input: system prompt and user prompt or conversation. */
    messages: {
      ...list(
        {
          type: 'object',
          required: ['role', 'content'],
          additionalProperties: false,
          properties: {
            /** Chat role, such as system, user or assistant. */
            role: nonEmpty(LIMITS.label, 'Chat role, such as `system`, `user` or `assistant`.'),
            /** Message text. */
            content: str(LIMITS.text, 'Message text.'),
          },
        },
        LIMITS.listItems,
        'The input: system prompt and user prompt or conversation, in chat-message format.',
      ),
      minItems: 1,
    },
    /** The output to grade. */
    output: str(LIMITS.text, 'The output to grade.'),
    /** Rules to grade against, at most 100. */
    rules: list({ $ref: 'Rule' }, MAX_RULES, 'Rules to grade against (more is a 400).'),
    /** Use case whose rules apply, instead of `rules`. */
    use_case: {
      type: 'string',
      pattern: NAME_PATTERN,
      maxLength: 64,
      description:
        'Use case whose rules apply; alternative to `rules`. 1 to 64 letters, digits, `_` or `-`; a name with no use case is a 400.',
    },
  },
} as const;
export type EvaluateRequest = FromSchema<typeof EvaluateRequestSchema, { references: [typeof RuleSchema] }>;

export const EvaluateResponseSchema = {
  $id: 'EvaluateResponse',
  type: 'object',
  description: 'The grading result.',
  required: ['correctness', 'rules', 'judge'],
  additionalProperties: false,
  properties: {
    /** Overall correctness. */
    correctness: {
      type: 'object',
      description: 'Overall correctness of the output.',
      required: ['verdict', 'score', 'explanation'],
      additionalProperties: false,
      properties: {
        /** `correct` or `defect`. */
        verdict: oneOf(VERDICTS, 'Verdict.'),
        /** 0 to 5; higher is more correct and complete. */
        score: { type: 'number', minimum: 0, maximum: 5, description: '0 to 5; higher is more correct and complete.' },
        /** Why. */
        explanation: { type: 'string', description: 'Why the judge gave this verdict and score.' },
      },
    },
    /** One result per rule. */
    rules: {
      type: 'array',
      description: 'One result per rule graded.',
      items: {
        type: 'object',
        required: ['ruleId', 'outcome', 'explanation'],
        additionalProperties: false,
        properties: {
          /** The rule's id. */
          ruleId: { type: 'string', description: "The rule's `id`." },
          /** Outcome; not_applicable is excluded from the rule's pass rate. */
          outcome: oneOf(
            RULE_OUTCOMES,
            "Outcome; `not_applicable` when the rule does not apply, excluded from the rule's pass rate.",
          ),
          /** Why. */
          explanation: { type: 'string', description: 'Why.' },
        },
      },
    },
    /** Addition: the judge model that graded. */
    judge: { type: 'string', description: 'Addition: the judge model that graded the output.' },
  },
} as const;
export type EvaluateResponse = FromSchema<typeof EvaluateResponseSchema>;
