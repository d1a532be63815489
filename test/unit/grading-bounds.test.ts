import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { describe, it } from 'mocha';
import { gradeWithBuiltinJudge, type JudgeRule } from '../../domain/evaluation/builtin-judge';
import { runCheck, type CheckContext } from '../../domain/evaluation/checks';
import {
  boundGrading,
  clipBytes,
  EVIDENCE,
  jsonBytes,
  listed,
  MAX_GRADING_BYTES,
  MAX_RULE_RESULT_BYTES,
  TEXT_BYTES,
} from '../../domain/evaluation/evidence';
import { judgeFailure } from '../../domain/evaluation/evaluate';
import type { Grading } from '../../domain/evaluation/results';
import { LIMITS } from '../../domain/contracts/common';
import { MAX_RULES } from '../../domain/contracts/evaluation';
import { FALLBACK_REASON_CHARS } from '../../workflows/evaluate';

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
/** Temporal's default limit of one payload. */
const TEMPORAL_BLOB_LIMIT = 2 * 1024 * 1024;

/** Rules of every family that quotes or lists what it found, repeated up to 100 with ids of their own. */
const FAMILIES = [
  'The answer must not contain any email addresses.',
  'The answer must not contain any phone numbers.',
  'The answer must not contain any credit card numbers.',
  'The answer must not contain secrets such as API keys, tokens, private keys or passwords.',
  'The answer must not contain any links.',
  'The answer must contain a link.',
  'The answer only links to URLs that appear in the conversation or the provided sources.',
  'Wrap your entire response in a title in double angular brackets, such as <<poem of joy>>.',
  'The first paragraph must start with the word "hello".',
  'Your entire response should be in English, and in all lowercase letters.',
  'Finish your response with this exact phrase "Is there anything else I can help with?".',
  'Wrap the entire output in JSON format.',
];
const hundredRules: JudgeRule[] = Array.from({ length: MAX_RULES }, (_, i) => ({
  id: `rule-${i}`,
  description: FAMILIES[i % FAMILIES.length],
  severity: i % 2 ? 'critical' : 'warning',
}));
const messages = [{ role: 'user', content: 'Where is my order?' }];

describe('grading bounds: what a grading says always fits a Temporal payload', () => {
  it('counts the bytes of a string as JSON exactly as Buffer.byteLength(JSON.stringify(s)) does, less the quotes', () => {
    const samples = [
      '',
      'plain ascii',
      'quotes " and backslashes \\',
      'controls \u0000\u0001\b\t\n\f\r\u001f',
      'accents é ß and Ω',
      'CJK 中文 and emoji 😀👍',
      'lone \ud800 high and \udc00 low surrogates',
      '\ud83d',
      'a\udc00',
    ];
    for (const s of samples) assert.equal(jsonBytes(s), bytesOf(s) - 2, JSON.stringify(s));
  });

  it('cuts a text to a size in bytes, never splitting a surrogate pair, and leaves one that fits as it is', () => {
    assert.equal(clipBytes('short', 100), 'short');
    for (const unit of ['a', '"', '\u0001', 'é', '中', '😀']) {
      const long = unit.repeat(5000);
      for (const max of [10, 11, 12, 13, 100, 1024]) {
        const cut = clipBytes(long, max);
        assert.ok(jsonBytes(cut) <= max, `${JSON.stringify(unit)} at ${max}: ${jsonBytes(cut)}`);
        assert.ok(cut.endsWith('…'));
        assert.ok(long.startsWith(cut.slice(0, -1)), 'a start of the text');
        assert.doesNotMatch(cut, /[\ud800-\udbff](?![\udc00-\udfff])/, 'no half of a pair');
      }
    }
  });

  it('lists a few items of evidence, each cut short, and counts the others', () => {
    const items = Array.from({ length: 50 }, (_, i) => `${i}-${'x'.repeat(1000)}`);
    const text = listed(items);
    assert.match(text, / and 47 more$/);
    assert.equal(text.split(', ').length, EVIDENCE.items);
    for (const item of text.replace(/ and \d+ more$/, '').split(', '))
      assert.ok(JSON.parse(item).length <= EVIDENCE.chars, item);
    assert.equal(listed(['a', 'b']), '"a", "b"');
    assert.equal(listed(['a', 'b'], { quote: false }), 'a, b');
  });

  it('bounds the largest grading the limits allow well under 512 kB, and Temporal takes 2 MiB', () => {
    // 100 rules, each with the longest id (512 characters, 6 bytes each as JSON at worst) and the longest explanation.
    assert.equal(MAX_RULE_RESULT_BYTES, 58 + 6 * LIMITS.id + TEXT_BYTES.explanation);
    assert.ok(MAX_RULES * MAX_RULE_RESULT_BYTES < MAX_GRADING_BYTES);
    assert.ok(MAX_GRADING_BYTES < 512 * 1024, `${MAX_GRADING_BYTES}`);
    assert.ok(MAX_GRADING_BYTES * 4 < TEMPORAL_BLOB_LIMIT);
    assert.ok(6 * FALLBACK_REASON_CHARS <= TEXT_BYTES.reason, "the workflow's fallback reason is within its share");
  });

  it('keeps the worst grading within MAX_GRADING_BYTES: longest ids, megabytes of explanation, the fallback reason', () => {
    const worst = (c: string): Grading => ({
      correctness: { verdict: 'correct', score: 0.0000012345678901234567, explanation: c.repeat(1_000_000) },
      rules: Array.from({ length: MAX_RULES }, (_, i) => ({
        ruleId: `${i}`.padEnd(LIMITS.id, c),
        outcome: 'not_applicable' as const,
        explanation: c.repeat(1_000_000),
      })),
      judge: c.repeat(10_000),
    });
    for (const c of ['\u0001', '"', '中', 'a']) {
      const bounded = boundGrading(worst(c));
      const result = { ...bounded, fallback: { reason: c.repeat(FALLBACK_REASON_CHARS) } };
      assert.ok(bytesOf(result) <= MAX_GRADING_BYTES, `${JSON.stringify(c)}: ${bytesOf(result)}`);
      for (const r of bounded.rules) assert.ok(jsonBytes(r.explanation) <= TEXT_BYTES.explanation);
    }
  });

  // Issue: 100 rules over a megabyte of `a@b.c` answered 500 (the result was larger than Temporal's payload limit),
  // over `http://a.b/` repeated 504, and a 100 kB output gave a 430 kB response.
  const hostile: [string, string][] = [
    ['a megabyte of a@b.c', 'a@b.c'.repeat(200_000)],
    ['a megabyte of phone numbers', '+1 555 123 4567 '.repeat(62_500)],
    ['a megabyte of http://a.b/', 'http://a.b/'.repeat(90_909)],
    ['a megabyte of spaced links', 'http://a.b/ '.repeat(83_333)],
    ['a title of a megabyte', `<<${'t'.repeat(999_990)}>>`],
    ['100 kB of a@b.c', 'a@b.c'.repeat(20_000)],
  ];
  for (const [name, output] of hostile)
    it(`grades 100 rules over ${name} within the bounds, each rule's evidence a few short quotes`, () => {
      const g = gradeWithBuiltinJudge({ messages, output, rules: hundredRules });
      assert.equal(g.rules.length, MAX_RULES);
      assert.ok(bytesOf(g) <= MAX_GRADING_BYTES, `${bytesOf(g)} bytes`);
      for (const r of g.rules) {
        // Evidence, not the output: a rule says what it found in a few hundred characters at most.
        assert.ok(r.explanation.length <= 400, `${r.ruleId}: ${r.explanation.length} characters`);
        assert.ok(jsonBytes(r.explanation) <= TEXT_BYTES.explanation);
      }
    });

  it('counts what it does not quote: "contains 200000 email addresses: …, … and 199997 more"', () => {
    const g = gradeWithBuiltinJudge({
      messages,
      output: 'a@b.c'.repeat(200_000),
      rules: [{ id: 'no-email', description: FAMILIES[0] }],
    });
    assert.match(g.rules[0].explanation, /^contains \d+ email addresses: [^,]+, [^,]+, [^,]+ and \d+ more$/);
  });

  it('quotes a rule of 10,000 characters in part: its own words count towards the bound too', () => {
    const phrase = 'word '.repeat(1990);
    const g = gradeWithBuiltinJudge({
      messages,
      output: 'Something else.',
      rules: [{ id: 'long', description: `Finish your response with this exact phrase "${phrase}".` }],
    });
    assert.equal(g.rules[0].outcome, 'fail');
    assert.ok(g.rules[0].explanation.length < 300, g.rules[0].explanation);
  });

  it('runs a check once per grading, however many rules ask for it', () => {
    const ctx: CheckContext = { messages, output: 'http://a.b/'.repeat(1000), memo: new Map() };
    const first = runCheck({ kind: 'links_grounded' }, ctx);
    const all = runCheck({ kind: 'all', checks: [{ kind: 'links_grounded' }, { kind: 'lowercase' }] }, ctx);
    assert.equal(runCheck({ kind: 'links_grounded' }, ctx), first, 'the same result, not a second run');
    assert.equal(ctx.memo?.size, 3);
    assert.equal(all.outcome, 'fail');
  });
});

describe('grading failures caused by the input are not retried', () => {
  it("turns the judge thread's RangeError or out-of-memory into InputTooCostly, not retryable", () => {
    const stack = Object.assign(new Error('Maximum call stack size exceeded'), { name: 'RangeError' });
    const memory = Object.assign(new Error('worker ran out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' });
    for (const err of [new RangeError('Invalid string length'), stack, memory]) {
      const f = judgeFailure(err);
      assert.ok(f instanceof ApplicationFailure);
      assert.equal(f.type, 'InputTooCostly');
      assert.equal(f.nonRetryable, true);
    }
  });

  it('leaves other failures as they are (the budget, a cancelled or closing pool)', () => {
    const budget = ApplicationFailure.create({ type: 'InputTooCostly', message: 'over budget', nonRetryable: true });
    const aborted = Object.assign(new Error('The task has been aborted'), { name: 'AbortError' });
    const closing = new Error('Terminating worker thread');
    for (const err of [budget, aborted, closing]) assert.equal(judgeFailure(err), err);
  });
});
