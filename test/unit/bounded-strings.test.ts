import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import {
  freeStrings,
  lastWholeSentence,
  stringLimit,
  tidyString,
  withoutRepeats,
  withStringLimit,
} from '../../domain/models/bounded-strings';
import { answerSchema } from '../../domain/ask/model-engine';
import { judgeSchema } from '../../domain/evaluation/model-judge';
import { strictObject } from '../../domain/models/chat';

describe('bounded strings', () => {
  it('counts the free strings of a reply: enums are not free, an array counts its maxItems, anyOf its widest branch', () => {
    assert.equal(freeStrings(answerSchema(3).schema), 1);
    const rules = [
      { id: 'r1', text: 'be polite' },
      { id: 'r2', text: 'answer in English' },
    ];
    // Two rules' explanations and the correctness's.
    assert.equal(freeStrings(judgeSchema(rules as never, true).schema), 3);
    assert.equal(freeStrings(strictObject({ n: { type: 'integer' }, e: { type: 'string', enum: ['x'] } })), 0);
  });

  it('shares 2 characters per token of the bound among the strings, never under 40', () => {
    assert.equal(stringLimit(answerSchema(3).schema, 512), 1024);
    assert.equal(stringLimit(strictObject({ a: { type: 'string' }, b: { type: 'string' } }), 100), 100);
    assert.equal(stringLimit(strictObject({ a: { type: 'string' } }), 5), 40);
    assert.equal(stringLimit(strictObject({ n: { type: 'integer' } }), 100), undefined);
  });

  it('puts maxLength on each free string only, inside anyOf and array items too', () => {
    const bounded = withStringLimit(answerSchema(2).schema, 300) as any;
    assert.deepEqual(bounded.properties.answer.anyOf, [{ type: 'string', maxLength: 300 }, { type: 'null' }]);
    assert.deepEqual(bounded.properties.sources.items, { type: 'integer', enum: [1, 2] });
    const judge = withStringLimit(judgeSchema([{ id: 'r1' }] as never, false).schema, 80) as any;
    assert.deepEqual(judge.properties.rules.items.properties.ruleId, { type: 'string', enum: ['r1'] });
    assert.deepEqual(judge.properties.rules.items.properties.explanation, { type: 'string', maxLength: 80 });
  });

  it('cuts a string back to its last whole sentence, or its last word when that would lose too much', () => {
    assert.equal(lastWholeSentence('One thing. Another thing. And the la'), 'One thing. Another thing.');
    assert.equal(lastWholeSentence('It said "stop." Then it went on and on'), 'It said "stop."');
    assert.equal(lastWholeSentence('Hi. ' + 'word '.repeat(20) + 'wo'), 'Hi. ' + 'word '.repeat(19) + 'word');
    assert.equal(lastWholeSentence('oneword'), 'oneword');
  });

  it('keeps each repeated paragraph and sentence once, short ones and spacing as written', () => {
    assert.equal(withoutRepeats('1. Open it.\n2. Save it.\n\n1. Open it.\n2. Save it.'), '1. Open it.\n2. Save it.');
    assert.equal(
      withoutRepeats('Reset it from the settings page. Yes. Reset it from the settings  page. Yes. Done'),
      'Reset it from the settings page. Yes. Yes. Done',
    );
    assert.equal(withoutRepeats('Fine as it is.\nNothing repeats here.'), 'Fine as it is.\nNothing repeats here.');
  });

  it('tidies a string: the cut only when it reached the limit', () => {
    assert.equal(tidyString('Done. And then', 100), 'Done. And then');
    assert.equal(tidyString('Done. Done. And then', 20), 'Done. Done.');
  });
});
