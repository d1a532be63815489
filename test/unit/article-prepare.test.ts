/**
 * An article's conversion before it is embedded (domain/text/article-text.ts, prepareArticle), and
 * its task on the worker's CPU threads (domain/cpu): what the costliest bodies of issue 33 give,
 * and that one past its budget is stopped as InputTooCostly, not retried, while the loop runs on.
 */
import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { after, describe, it } from 'mocha';
import { createCpuPool } from '../../domain/cpu/pool';
import { FAILURE_TYPES } from '../../domain/failures';
import { prepareArticle } from '../../domain/text/article-text';

const MB = 990_000;

describe('article preparation', () => {
  it("leaves out passages without a letter or digit: a megabyte of '[' has nothing to embed", () => {
    const prepared = prepareArticle({ title: 'Brackets', body: '['.repeat(MB) });
    assert.deepEqual(prepared.passages, []);
    assert.ok(prepared.unsearchable > 0);
    assert.equal(prepared.language, '');
  });

  it("keeps what can be searched: a megabyte of '*a**' is passages of bounded size", () => {
    const prepared = prepareArticle({ title: 'Emphasis', body: '*a**'.repeat(MB / 4) });
    assert.ok(prepared.passages.length > 0 && prepared.passages.length <= 1000);
    assert.ok(prepared.passages.every((p) => /a/.test(p.text) && p.text.length <= 2 * 1200));
    assert.equal(prepared.unsearchable, 0);
  });

  it('keeps a heading-only section, and the language given (in lower case) or detected', () => {
    const mixed = prepareArticle({
      title: 'Reset',
      body: '# Reset\n\n[[[[\n\n## Steps\n\nOpen the settings.',
      language: 'EN-us',
    });
    assert.deepEqual(
      mixed.passages.map((p) => p.heading),
      ['Reset', 'Steps'],
    );
    assert.equal(mixed.language, 'en');
    const detected = prepareArticle({
      title: 'Réinitialiser',
      body: 'Ouvrez les paramètres et choisissez Sécurité, puis cliquez sur le bouton pour réinitialiser votre mot de passe.',
    });
    assert.equal(detected.language, 'fr');
  });

  describe('on a CPU thread', () => {
    // A thread's start (loading the TypeScript sources) counts against the budget: the first pool has room for it.
    const roomy = createCpuPool({ threads: 1, budgetMs: 60_000 });
    const pool = createCpuPool({ threads: 1, budgetMs: 50 });
    after(() => Promise.all([roomy.close(), pool.close()]));

    it('converts an article off the event loop', async () => {
      const prepared = await roomy.run({ task: 'prepareArticle', input: { title: 'T', body: '# H\n\nSome text.' } });
      assert.deepEqual(prepared.passages, [{ heading: 'H', text: 'Some text.' }]);
    });

    it('stops a conversion past its budget with InputTooCostly, not retryable', async () => {
      let turns = 0;
      const spin = setInterval(() => (turns += 1), 5);
      const err = await pool.run({ task: 'prepareArticle', input: { title: 'T', body: '*a**'.repeat(MB / 4) } }).then(
        () => assert.fail('a megabyte was converted within 50 ms'),
        (e: unknown) => e,
      );
      clearInterval(spin);
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, FAILURE_TYPES.tooCostly);
      assert.equal(err.nonRetryable, true);
      assert.match(err.message, /converting this article to passages took longer than its budget/);
      assert.ok(turns > 0, 'the event loop ran meanwhile');
    });
  });
});
