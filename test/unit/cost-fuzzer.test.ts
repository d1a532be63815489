import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { describe, it } from 'mocha';
import {
  checkCostRequest,
  checkSetupCase,
  COST_LIMITS,
  COST_OPERATION_NAMES,
  costCases,
  costSetupCases,
  heaviest,
  PLACEHOLDERS,
} from '../../bench/lib/cost-fuzzer';
import { PATTERN_NAMES, patternText, rng } from '../../bench/lib/cost-patterns';
import { LIMITS } from '../../domain/contracts/common';

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

describe('cost fuzzer: patterns', () => {
  for (const name of PATTERN_NAMES) {
    it(`${name}: exactly the length asked for, valid Unicode, the same for the same seed`, () => {
      for (const n of [1, 2, 7, 1000, 100_001]) {
        const text = patternText(name, rng('seed'), n);
        assert.equal(text.length, n);
        assert.ok(!LONE_SURROGATE.test(text), `${name} of ${n} holds a lone surrogate`);
        assert.equal(patternText(name, rng('seed'), n), text);
      }
    });
  }

  it('draws differ with the seed', () => {
    assert.notEqual(patternText('random-words', rng('a'), 1000), patternText('random-words', rng('b'), 1000));
  });
});

describe('cost fuzzer: cases', () => {
  const cases = costCases();

  it('covers every operation with at least three cases, each name unique and naming its operation', () => {
    for (const op of COST_OPERATION_NAMES) assert.ok(heaviest(cases, op, 3).length === 3, `${op} has fewer than 3`);
    assert.equal(new Set(cases.map((c) => c.name)).size, cases.length);
    for (const c of cases) assert.ok(c.name.startsWith(`${c.operation}/${c.pattern}-`), c.name);
  });

  it("names summary's request of issue 33 first: 240 comments of 20,000 random three-letter words", () => {
    const [first] = heaviest(cases, 'summary', 1);
    assert.equal(first.name, 'summary/random-words-240x20000-4.8MB');
    const body = first.build().body as { comments: { comment: string }[] };
    assert.equal(body.comments.length, 240);
    assert.ok(body.comments.every((c) => c.comment.length === 20_000 && /^([a-z]{3} )+[a-z ]*$/.test(c.comment)));
  });

  it('is deterministic from the seed', () => {
    const small = cases.filter((c) => c.operation === 'ask' || c.operation === 'search-cases');
    const again = costCases();
    for (const c of small)
      assert.equal(digest(c.build()), digest(again.find((d) => d.name === c.name)!.build()), c.name);
    const other = costCases({ seed: 'another' });
    assert.notEqual(digest(small[0].build()), digest(other.find((d) => d.name === small[0].name)!.build()));
  });

  it('refuses what the API would refuse (the check itself can fail)', () => {
    const summary = { operation: 'summary' as const };
    const ok = { method: 'POST' as const, path: '/v1/summary', body: { description: 'Printer broken.' } };
    assert.deepEqual(checkCostRequest(summary, ok), []);
    const tooLong = { ...ok, body: { description: 'a'.repeat(LIMITS.text + 1) } };
    assert.match(checkCostRequest(summary, tooLong).join(), /schema: \/description must NOT have more than/);
    assert.match(checkCostRequest(summary, { ...ok, body: { description: 'x', extra: 1 } }).join(), /schema/);
    const lone = { ...ok, body: { description: 'a\ud800b' } };
    assert.match(checkCostRequest(summary, lone).join(), /not valid Unicode/);
    const huge = {
      ...ok,
      body: { comments: Array.from({ length: 11 }, () => ({ comment: 'a'.repeat(LIMITS.text) })) },
    };
    assert.match(checkCostRequest(summary, huge).join(), /the body is \d+ bytes, over/);
    const evaluate = {
      method: 'POST' as const,
      path: '/v1/control/autoeval/evaluate',
      body: {
        messages: [{ role: 'user', content: 'a'.repeat(LIMITS.text) }],
        output: 'b'.repeat(LIMITS.text),
      },
    };
    assert.match(checkCostRequest({ operation: 'evaluate' }, evaluate).join(), /the input is \d+ bytes as JSON/);
  });

  for (const c of cases) {
    it(`${c.name} is valid and near the limits`, function () {
      this.timeout(60_000);
      const req = c.build();
      assert.deepEqual(checkCostRequest(c, req), []);
      const bytes = req.body ? Buffer.byteLength(JSON.stringify(req.body)) : 0;
      // "Maximum sizes": a request fills at least 90 % of the size in its name (setup cases carry the size of the others).
      if (req.body && !c.setupCases) assert.ok(bytes >= 0.9 * c.nominalBytes, `${bytes} bytes`);
      if (c.operation === 'feedback') assert.equal((req.body as { id: string }).id, PLACEHOLDERS.answerId);
      for (const id of c.setupCases ?? [])
        assert.ok(
          costSetupCases().some((s) => s.id === id),
          `${id} is no setup case`,
        );
    });
  }

  for (const setup of costSetupCases()) {
    it(`setup case ${setup.id} is a valid case of nearly 1.5 MiB with ${setup.comments} comments`, function () {
      this.timeout(60_000);
      const c = setup.build();
      assert.deepEqual(checkSetupCase(c), []);
      assert.equal(c.comments?.length, setup.comments);
      assert.ok(Buffer.byteLength(JSON.stringify(c)) > 0.9 * COST_LIMITS.itemBytes);
    });
  }
});
