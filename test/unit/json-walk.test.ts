import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { exceedsDepth, firstIllFormedText } from '../../domain/contracts/json-walk';

describe('JSON walks', () => {
  it('finds the first lone surrogate, in values and keys, by JSON pointer', () => {
    assert.equal(firstIllFormedText(JSON.parse('{"query": "\\ud800x"}')), '/query');
    assert.equal(firstIllFormedText(JSON.parse('{"data": [{"id": "a"}, {"id": "b\\udc00"}]}')), '/data/1/id');
    assert.equal(firstIllFormedText(JSON.parse('{"a/b": {"\\ud800": 1}}')), '/a~1b/\ud800');
    assert.equal(firstIllFormedText(JSON.parse('"\\ud800"')), '');
  });

  it('accepts well-formed text, surrogate pairs included', () => {
    assert.equal(firstIllFormedText({ query: '😀 naïve 日本', list: ['\ud83d\ude00'] }), undefined);
    assert.equal(firstIllFormedText({ n: 1, b: true, z: null }), undefined);
  });

  it('measures depth counting the value itself, and survives 100,000 levels', () => {
    assert.equal(exceedsDepth('x', 0), false);
    assert.equal(exceedsDepth({}, 0), true);
    assert.equal(exceedsDepth({ a: [1, { b: 2 }] }, 3), false);
    assert.equal(exceedsDepth({ a: [1, { b: 2 }] }, 2), true);
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    assert.equal(exceedsDepth(deep, 32), true);
    assert.equal(firstIllFormedText(deep), undefined);
  });
});
