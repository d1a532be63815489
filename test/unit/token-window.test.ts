/**
 * Cutting query texts to the embedding model's window (domain/models/token-window.ts): the
 * bound of one token per normalised code point, plus the word marker, "query: " and <s></s>.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { codePointTokenBound, tokenBound, truncateToWindow } from '../../domain/models/token-window';

const window = { maxTokens: 512, prefix: 'query: ' };
/** What the window leaves for the text: 512 - <s></s> - (marker + "query: "). */
const BUDGET = 512 - 2 - 8;

describe('query window', () => {
  it('leaves a text that fits as it is', () => {
    const text = 'How do I reset my password when the reset link has expired?';
    assert.equal(truncateToWindow(text, window), text);
    const atBudget = 'x'.repeat(BUDGET);
    assert.equal(truncateToWindow(atBudget, window), atBudget);
  });

  it('cuts 10,000 emoji (one token each at most) to the budget, on code points', () => {
    const out = truncateToWindow('😀'.repeat(10_000), window);
    assert.equal([...out].length, BUDGET);
    assert.equal(out.length, BUDGET * 2, 'no surrogate pair is split');
    assert.ok(tokenBound('query: ') + tokenBound(out) - 1 + 2 <= 512);
  });

  it('counts what NFKC expands: U+FDFA becomes 18 code points', () => {
    assert.equal(codePointTokenBound('\uFDFA'.codePointAt(0)!), 18);
    assert.equal(codePointTokenBound('a'.codePointAt(0)!), 1);
    assert.equal(codePointTokenBound('é'.codePointAt(0)!), 1);
    const out = truncateToWindow('\uFDFA'.repeat(100), window);
    assert.equal(out.length, Math.floor(BUDGET / 18));
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'a'.repeat(BUDGET - 1)}😀😀`;
    const out = truncateToWindow(text, window);
    assert.equal(out, `${'a'.repeat(BUDGET - 1)}😀`);
  });

  it('follows the window size it is given', () => {
    assert.equal(truncateToWindow('abcdefghij', { maxTokens: 15, prefix: 'query: ' }), 'abcde');
    assert.equal(truncateToWindow('abc', { maxTokens: 5, prefix: 'query: ' }), '');
  });
});
