import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { ASK_BOUNDS, boundedPassage, opening, searchedQuestion } from '../../domain/ask/bounds';
import { latestUpdate } from '../../domain/weaviate/ask-retrieve';

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 97}x`).join(' ');

describe('ask bounds: what an ask reads of tenant text', () => {
  it('keeps a text within the bound as it is', () => {
    assert.equal(opening('short question', 100), 'short question');
    assert.equal(searchedQuestion('How do I reset my password?'), 'How do I reset my password?');
  });

  it('cuts a long question to its opening, after a whole word', () => {
    const q = words(3000);
    const cut = searchedQuestion(q);
    assert.ok(cut.length <= ASK_BOUNDS.queryChars);
    assert.ok(cut.length > ASK_BOUNDS.queryChars * 0.9);
    assert.ok(q.startsWith(cut));
    assert.ok(q[cut.length] === ' ', 'cut at a blank');
  });

  it('cuts a text without blanks at the bound, never inside a surrogate pair', () => {
    assert.equal(opening('a'.repeat(50), 10), 'a'.repeat(10));
    const emoji = '😀'.repeat(10); // 20 UTF-16 units
    const cut = opening(emoji, 5);
    assert.equal(cut, '😀😀');
  });

  it('bounds a source passage (a case of 1.5 MB of comments reads as its opening)', () => {
    const comments = words(300_000);
    assert.ok(boundedPassage(comments).length <= ASK_BOUNDS.passageChars);
  });

  it('reads an incident’s latest update from the last timeline line, bounded', () => {
    const text = 'Outage\nstatus: investigating\n2024-05-01 — Looking into it\n2024-05-02 — Fixed — for real\n';
    assert.equal(latestUpdate(text), 'for real');
    assert.equal(latestUpdate('no timeline here\nnone'), undefined);
    assert.equal(latestUpdate(''), undefined);
    assert.equal(latestUpdate('\n\n'), undefined);
    assert.equal(latestUpdate('x — '), '');
    const long = `Outage\n2024 — ${words(5000)}`;
    assert.ok(latestUpdate(long)!.length <= ASK_BOUNDS.updateChars);
    // Many lines without an update: read once from the end (linear), not once per line.
    assert.equal(latestUpdate(`${'line\n'.repeat(200_000)}`), undefined);
  });
});
