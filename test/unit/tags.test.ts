import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { keywordTags, KEYWORD_MAX_SCORE } from '../../domain/tags/keywords';
import { MIN_TAG_CASES, tagNameText, tagPredictor, trainTagModel, type TagExample } from '../../domain/tags/model';
import { parseModelTags } from '../../domain/tags/model-engine';
import { logits, seeded, softmax, trainSoftmax } from '../../domain/tags/softmax';
import { buildVocabulary, termIndex, terms, wordFeatures } from '../../domain/tags/words';
import { parseTagModel, serializeTagModel } from '../../domain/weaviate/tag-models';

/** Synthetic "embeddings": one direction per tag plus seeded noise, unit length. */
function examples(
  tags: Record<string, number>,
  o: { dim?: number; seed?: number; words?: Record<string, string> } = {},
): TagExample[] {
  const dim = o.dim ?? 16;
  const random = seeded(o.seed ?? 3);
  const names = Object.keys(tags);
  return names.flatMap((name, k) =>
    Array.from({ length: tags[name] }, () => {
      const v = Array.from({ length: dim }, (_, i) => (i === k ? 1 : 0) + (random() - 0.5) * 0.6);
      const norm = Math.hypot(...v);
      return { vector: v.map((x) => x / norm), text: o.words?.[name] ?? `about ${name}`, tags: [name] };
    }),
  );
}

describe('tag model', () => {
  it('softmax training separates separable classes, deterministically', async () => {
    const xs = [{ dense: [1, 0] }, { dense: [0.9, 0.1] }, { dense: [0, 1] }, { dense: [0.1, 0.9] }];
    const ys = [[0], [0], [1], [1]];
    const a = await trainSoftmax(xs, ys, { classes: 2, sparse: 0 });
    const b = await trainSoftmax(xs, ys, { classes: 2, sparse: 0 });
    assert.deepEqual(a, b);
    assert.ok(softmax(logits(a, { dense: [1, 0] }))[0] > 0.9);
    assert.ok(softmax(logits(a, { dense: [0, 1] }))[1] > 0.9);
  });

  it('learns from sparse word features alone', async () => {
    const vocabulary = buildVocabulary(['card late', 'card lost', 'refund money', 'money back'], {
      minDocuments: 1,
      maxTerms: 100,
    });
    const index = termIndex(vocabulary);
    const f = (t: string) => ({ dense: [0], sparse: wordFeatures({ vocabulary, index, scale: 1 }, t) });
    const model = await trainSoftmax(
      [f('card late'), f('card lost'), f('refund money'), f('money back')],
      [[0], [0], [1], [1]],
      { classes: 2, sparse: vocabulary.terms.length },
    );
    assert.ok(softmax(logits(model, f('my card')))[0] > 0.8);
    assert.ok(softmax(logits(model, f('money please')))[1] > 0.8);
  });

  it('words: pairs included, vocabulary bounded by use and by size', () => {
    assert.deepEqual(terms("I can't log-in"), ['i', "can't", 'log', 'in', "i can't", "can't log", 'log in']);
    const v = buildVocabulary(['a b', 'a c', 'a b', 'd'], { minDocuments: 2, maxTerms: 10 });
    assert.deepEqual(v.terms, ['a', 'a b', 'b']);
    assert.deepEqual(buildVocabulary(['a b', 'a c', 'a b', 'd'], { minDocuments: 2, maxTerms: 1 }).terms, ['a']);
    const index = termIndex(v);
    const x = wordFeatures({ vocabulary: v, index, scale: 1 }, 'a b unknown');
    assert.ok(Math.abs(Math.hypot(...Array.from(x.value)) - 1) < 1e-9);
  });

  it(`drops tags on fewer than ${MIN_TAG_CASES} cases and needs two tags`, async () => {
    assert.equal(await trainTagModel(examples({ only: 10 }), { now: 1 }), null);
    const model = (await trainTagModel(examples({ a: 6, b: 6, rare: MIN_TAG_CASES - 1 }), { now: 1 }))!;
    assert.deepEqual(model.tags, ['a', 'b']);
    assert.deepEqual(model.support, [6, 6]);
    assert.equal(model.cases, 12);
    assert.equal(model.holdoutAccuracy, null, 'too few cases to hold some out');
  });

  it('predicts probabilities that sum to 1, best first, and fits a temperature on held-out cases', async () => {
    const data = examples({ a: 200, b: 200, c: 200 }, { seed: 5 });
    const model = (await trainTagModel(data, { now: 42 }))!;
    assert.ok(model.holdoutAccuracy! > 0.9, String(model.holdoutAccuracy));
    assert.ok(model.temperature >= 0.25 && model.temperature <= 4);
    const predict = tagPredictor(model);
    const scores = predict({ vector: data[0].vector, text: data[0].text });
    assert.equal(scores[0].name, 'a');
    assert.ok(Math.abs(scores.reduce((s, t) => s + t.score, 0) - 1) < 1e-9);
    for (let i = 1; i < scores.length; i++) assert.ok(scores[i - 1].score >= scores[i].score);
  });

  it('reads a tag name as words', () => {
    assert.equal(tagNameText('card_arrival'), 'card arrival');
    assert.equal(tagNameText('passwordReset'), 'password Reset');
    assert.equal(tagNameText('billing/refund-request'), 'billing refund request');
    assert.equal(tagNameText('__'), '__');
  });

  it("learns each kept tag's name as one more example, not counted as a case", async () => {
    // Cases vary in the first four dimensions only; the names point along the 6th and 7th.
    const random = seeded(9);
    const vector = (k: number, noise: number) =>
      Array.from({ length: 16 }, (_, i) => (i === k ? 1 : 0) + (i < 4 ? (random() - 0.5) * noise : 0));
    const data = ['a', 'b', 'rare'].flatMap((tag, k) =>
      Array.from({ length: tag === 'rare' ? MIN_TAG_CASES - 1 : 4 }, () => ({
        vector: vector(k, 0.6),
        text: '',
        tags: [tag],
      })),
    );
    const asked: string[][] = [];
    const embedNames = async (texts: string[]) => (asked.push(texts), texts.map((t) => vector(t === 'a' ? 5 : 6, 0)));
    const model = (await trainTagModel(data, { now: 1, embedNames }))!;
    assert.deepEqual(asked, [['a', 'b']]);
    assert.deepEqual(model.support, [4, 4]);
    assert.equal(model.cases, 8);
    const top = (m: NonNullable<typeof model>, k: number) => tagPredictor(m)({ vector: vector(k, 0), text: '' })[0];
    assert.equal(top(model, 5).name, 'a');
    assert.ok(top(model, 5).score > 0.8);
    assert.equal(top(model, 6).name, 'b');
    assert.ok(top(model, 6).score > 0.8);
    const without = (await trainTagModel(data, { now: 1 }))!;
    assert.deepEqual(top(without, 5), top(without, 6), 'without the names, nothing tells the two directions apart');
  });

  it("reads the English encoder's vector beside the case embedding when one is given", async () => {
    // The case embeddings say nothing (one vector for all); the English vectors tell the tags apart.
    const data = examples({ a: 8, b: 8 }).map((e) => ({ ...e, vector: [1, 0, 0, 0], text: '' }));
    const englishOf = new Map(data.map((e, i) => [e, examples({ a: 8, b: 8 }, { seed: 5 })[i].vector]));
    const read: string[][] = [];
    let next = 0;
    const embed = async (texts: string[]) => (
      read.push(texts),
      texts.map(() => [...englishOf.get(data[next++ % data.length])!])
    );
    const model = (await trainTagModel(data, { now: 1, english: { model: 'encoder', embed } }))!;
    assert.equal(model.english, 'encoder');
    assert.equal(model.mean.length, 4 + 16);
    assert.equal(read.flat().length, data.length, 'every case read once, before the trainings');
    const predict = tagPredictor(parseTagModel(serializeTagModel(model)));
    const [a, b] = [data[0], data[15]];
    assert.equal(predict({ ...a, english: englishOf.get(a) })[0].name, 'a');
    assert.equal(predict({ ...b, english: englishOf.get(b) })[0].name, 'b');
    assert.throws(() => predict(a), /reads texts with encoder/);
    const without = (await trainTagModel(data, { now: 1 }))!;
    assert.equal(without.english, undefined);
    assert.equal(without.mean.length, 4);
  });

  it('survives storage: the parsed model predicts exactly as the trained one', async () => {
    const data = examples({ a: 8, b: 8 }, { words: { a: 'card late', b: 'refund money' } });
    const model = (await trainTagModel(data, { now: 7 }))!;
    const back = parseTagModel(serializeTagModel(model));
    const input = { vector: data[3].vector, text: 'card late again' };
    assert.deepEqual(tagPredictor(back)(input), tagPredictor(model)(input));
    assert.equal(back.trainedAt, 7);
  });
});

describe('keyword tags', () => {
  it('counts content words, most frequent first, scores capped', () => {
    const tags = keywordTags({ message: 'Invoice invoice INVOICE missing for order 12345', language: 'en', limit: 5 });
    assert.equal(tags[0].name, 'invoice');
    assert.equal(tags[0].score, KEYWORD_MAX_SCORE);
    assert.ok(!tags.some((t) => t.name === '12345' || t.name === 'for'));
    assert.deepEqual(keywordTags({ message: 'the and of', language: 'en', limit: 5 }), []);
  });
  it('uses the stop words of the language, and at most `limit` tags', () => {
    const tags = keywordTags({
      message: 'Je ne peux pas me connecter à mon compte depuis hier soir avec mon téléphone',
      language: 'fr',
      limit: 3,
    });
    assert.equal(tags.length, 3);
    assert.ok(!tags.some((t) => ['pas', 'mon', 'avec'].includes(t.name)), JSON.stringify(tags));
  });
});

describe('model tag replies', () => {
  const o = { vocabulary: ['refund', 'card_arrival'], limit: 5 };
  it('accepts tags of the vocabulary with confidences 0..100 as scores 0..1, best first, each once', () => {
    assert.deepEqual(
      parseModelTags(
        '```json\n{"tags":[{"name":"refund","confidence":20},{"name":"card_arrival","confidence":80},{"name":"refund","confidence":10}]}\n```',
        o,
      ),
      [
        { name: 'card_arrival', score: 0.8 },
        { name: 'refund', score: 0.2 },
      ],
    );
    assert.deepEqual(parseModelTags('{"tags": []}', o), []);
  });
  for (const [why, reply] of [
    ['not JSON', 'refund'],
    ['no list', '{"tag": "refund"}'],
    ['an invented tag', '{"tags":[{"name":"free-money","confidence":100}]}'],
    ['a confidence out of range', '{"tags":[{"name":"refund","confidence":101}]}'],
    ['a confidence that is not a number', '{"tags":[{"name":"refund","confidence":"high"}]}'],
  ]) {
    it(`refuses ${why} as unreadable (retried by the read path)`, () => {
      assert.throws(() => parseModelTags(reply, o), /could not be read/);
    });
  }
});
