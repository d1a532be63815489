import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { articleSections, detectLanguage, snippet, toPassages } from '../../domain/text/article-text';
import { caseText } from '../../domain/text/records';
import { productList } from '../../domain/contracts/search';
import { caseSearchWindow } from '../../api/routes/search';
import { lastById, toBatches } from '../../api/routes/upload-route';

describe('toBatches', () => {
  it('bounds batches by count and by serialized size, keeping order', () => {
    const items = Array.from({ length: 250 }, (_, i) => ({ i }));
    assert.deepEqual(
      toBatches(items).map((b) => b.length),
      [100, 100, 50],
    );
    const big = Array.from({ length: 5 }, (_, i) => ({ i, body: 'x'.repeat(300 * 1024) }));
    const batches = toBatches(big);
    assert.equal(batches.length, 5);
    assert.deepEqual(
      batches.flat().map((b) => b.i),
      [0, 1, 2, 3, 4],
    );
  });

  it('keeps the last copy of a repeated id', () => {
    assert.deepEqual(
      lastById(
        [
          { id: 'a', v: 1 },
          { id: 'b', v: 2 },
          { id: 'a', v: 3 },
        ],
        (x) => x.id,
      ),
      [
        { id: 'a', v: 3 },
        { id: 'b', v: 2 },
      ],
    );
  });
});

describe('caseSearchWindow', () => {
  it('applies rule 1, legacy numResults, pagination defaults and rule 4', () => {
    assert.throws(() => caseSearchWindow({}), /query/);
    assert.deepEqual(caseSearchWindow({ query: 'x' }), { offset: 0, limit: 4 });
    assert.deepEqual(caseSearchWindow({ query: 'x', numResults: 7 }), { offset: 0, limit: 7 });
    assert.deepEqual(caseSearchWindow({ query: 'x', numResults: 7, offset: 5 }), { offset: 5, limit: 25 });
    assert.deepEqual(caseSearchWindow({ conversationId: 'c', limit: 10 }), { offset: 0, limit: 10 });
    assert.throws(() => caseSearchWindow({ query: 'x', offset: 190, limit: 11 }), /200/);
  });

  it('splits product lists on commas and trims', () => {
    assert.deepEqual(productList(' a , b,,c '), ['a', 'b', 'c']);
    assert.deepEqual(productList(undefined), []);
  });
});

describe('article text', () => {
  it('converts HTML with real parsing, keeping headings as sections', () => {
    const sections = articleSections(
      '<h1>Setup</h1><p>Install <b>it</b> &amp; run.</p><script>evil()</script><h2>Usage</h2><ul><li>one</li></ul>',
    );
    assert.deepEqual(
      sections.map((s) => s.heading),
      ['Setup', 'Usage'],
    );
    assert.equal(sections[0].text, 'Install it & run.');
    assert.doesNotMatch(sections.map((s) => s.text).join(' '), /evil/);
  });

  it('reads markdown the same way', () => {
    assert.deepEqual(
      articleSections('# Title\n\nSome *text*.\n\n## Next\n\nMore.').map((s) => [s.heading, s.text]),
      [
        ['Title', 'Some text.'],
        ['Next', 'More.'],
      ],
    );
  });

  it('splits long sections into bounded, overlapping passages', () => {
    const text = Array.from({ length: 80 }, (_, i) => `Sentence number ${i} says something.`).join(' ');
    const passages = toPassages([{ heading: 'H', text }], { maxChars: 400, overlapChars: 80 });
    assert.ok(passages.length > 3);
    for (const p of passages) assert.ok(p.text.length <= 400, `${p.text.length}`);
    const tail = passages[0].text.slice(-40);
    assert.ok(
      passages[1].text.includes(tail.slice(tail.indexOf(' ') + 1)),
      'the next passage repeats the end of the previous one',
    );
    assert.ok(passages.every((p) => p.heading === 'H'));
  });

  it('detects the language and cuts snippets at word boundaries', () => {
    assert.equal(detectLanguage('Bonjour, comment puis-je réinitialiser mon mot de passe ?'), 'fr');
    assert.equal(detectLanguage('How do I reset my password on the new portal?'), 'en');
    const s = snippet('alpha beta gamma delta epsilon', 14);
    assert.equal(s, 'alpha beta…');
  });
});

describe('caseText', () => {
  it('searches public comments only; a comment without isPublic is public', () => {
    const t = caseText({
      subject: 'S',
      description: 'D',
      comments: [
        { comment: 'public one', isPublic: true },
        { comment: 'secret', isPublic: false },
        { comment: 'default' },
      ],
    });
    assert.equal(t.publicComments, 'public one\n\ndefault');
    assert.equal(t.privateComments, 'secret');
    assert.doesNotMatch(t.embedding, /secret/);
  });
});
