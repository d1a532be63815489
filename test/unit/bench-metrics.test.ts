import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import {
  firstRelevantRank,
  hitAt,
  labelReciprocalRank,
  rankLikeScorer,
  reciprocalRankAt,
  semevalAveragePrecision,
  semevalMap,
  singleGoldMetrics,
} from '../../bench/lib/metrics';
import { buildArticles, incidentRecord, parseRelevancy, stackFaqCase } from '../../bench/lib/datasets';
import { casesUpload } from '../../domain/contracts/case';
import { articlesUpload } from '../../domain/contracts/article';
import { checkUploadItems } from '../../domain/contracts/upload';
import { compileBody, firstErrorMessage } from '../../domain/contracts/ajv';
import { IncidentUploadSchema } from '../../domain/contracts/incident';

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);

describe('benchmark metrics', () => {
  it('finds the 1-based rank of the first relevant id within the top k, 0 when absent', () => {
    assert.equal(firstRelevantRank(['a', 'b', 'c'], 'b'), 2);
    assert.equal(firstRelevantRank(['a', 'b', 'c'], new Set(['c', 'b'])), 2);
    assert.equal(firstRelevantRank(['a', 'b', 'c'], 'c', 2), 0);
    assert.equal(firstRelevantRank([], 'a'), 0);
  });

  it('cuts reciprocal rank and hits at k', () => {
    assert.equal(reciprocalRankAt(1, 10), 1);
    close(reciprocalRankAt(4, 10), 0.25);
    assert.equal(reciprocalRankAt(11, 10), 0);
    assert.equal(reciprocalRankAt(0, 10), 0);
    assert.equal(hitAt(5, 5), 1);
    assert.equal(hitAt(6, 5), 0);
    assert.equal(hitAt(0, 1), 0);
  });

  it('averages MRR@10 and recall@k over single-gold queries, misses counting 0', () => {
    const m = singleGoldMetrics([1, 2, 5, 0, 12]);
    assert.equal(m.queries, 5);
    close(m.mrr10, (1 + 0.5 + 0.2 + 0 + 0) / 5);
    close(m.recall1, 1 / 5);
    close(m.recall5, 3 / 5);
    close(m.recall10, 3 / 5);
    assert.throws(() => singleGoldMetrics([]));
  });

  describe('SemEval-2016 Task 3 scorer', () => {
    it('divides by the relevant items found in the top 10, as the official metrics.map does', () => {
      // relevant at ranks 2 and 4: (1/2 + 2/4) / 2
      close(semevalAveragePrecision([false, true, false, true]), 0.5);
      close(semevalAveragePrecision([true, true, false]), 1);
      // a relevant item below rank k does not count
      close(semevalAveragePrecision([false, true, false], 1), 0);
      close(semevalAveragePrecision([true, false, false, true], 3), 1);
    });

    it('counts a question without relevant candidates as AP 0 in the mean', () => {
      close(semevalMap([[true], [false, false]]), 0.5);
      close(
        semevalMap([
          [false, true],
          [true, false],
        ]),
        0.75,
      );
    });

    it("orders by score with ties in input order, like the scorer's stable sort", () => {
      const rows = [
        { id: 'r1', s: 0.5 },
        { id: 'r2', s: 0.9 },
        { id: 'r3', s: 0.5 },
        { id: 'r4', s: Number.NEGATIVE_INFINITY },
        { id: 'r5', s: 0.9 },
      ];
      assert.deepEqual(
        rankLikeScorer(rows, (r) => r.s).map((r) => r.id),
        ['r2', 'r5', 'r1', 'r3', 'r4'],
      );
    });

    it('reads the official relevancy format', () => {
      const rows = parseRelevancy('Q1\tQ1_R4\t4\t0.25\ttrue\nQ1\tQ1_R5\t5\t0.2\tfalse\n');
      assert.deepEqual(rows, [
        { orgqId: 'Q1', relqId: 'Q1_R4', irRank: 4, relevant: true },
        { orgqId: 'Q1', relqId: 'Q1_R5', irRank: 5, relevant: false },
      ]);
      assert.throws(() => parseRelevancy('Q1\tQ1_R4\t4\t0.25\tmaybe'));
    });

    it('MRR over labelled lists', () => {
      close(labelReciprocalRank([false, false, true]), 1 / 3);
      assert.equal(labelReciprocalRank([false, false]), 0);
    });
  });
});

describe('benchmark upload items', () => {
  it('builds StackFAQ cases the API accepts', () => {
    const item = stackFaqCase({
      thread_id: 'sf001',
      question: 'Strikethrough with GitHub Markdown',
      answers: ['Use ~~tildes~~.', 'Or <del>.</del>'],
    });
    const { items, failed } = checkUploadItems(casesUpload, { data: [item] });
    assert.deepEqual(failed, []);
    assert.equal(items[0].comments?.length, 2);
  });

  it('builds distinct articles the API accepts, reusing sources in later rounds as other products', () => {
    const sources = [
      { key: 'a', title: 'A', body: 'alpha' },
      { key: 'b', title: 'B', body: 'beta' },
    ];
    const articles = buildArticles(sources, 5);
    assert.equal(new Set(articles.map((a) => a.articleId)).size, 5);
    assert.equal(new Set(articles.map((a) => a.url)).size, 5);
    assert.deepEqual(
      articles.map((a) => a.body),
      ['alpha', 'beta', 'alpha', 'beta', 'alpha'],
    );
    assert.deepEqual(
      articles.map((a) => a.productId),
      ['product-1', 'product-1', 'product-2', 'product-2', 'product-3'],
    );
    assert.deepEqual(checkUploadItems(articlesUpload, { articles }).failed, []);
  });

  it('maps a status-page incident to the upload record shape', () => {
    const record = incidentRecord({
      id: '1',
      title: 'Incident with Codespaces',
      url: 'https://www.githubstatus.com/incidents/x',
      started_at: '2022-03-26T01:43:00Z',
      updated_at: null,
      impact: 'minor',
      components: ['Codespaces'],
      updates: [
        { at: '2022-03-26T01:43:00Z', status: 'Investigating', message: 'Looking.' },
        { at: '2022-03-26T03:35:00Z', status: 'Resolved', message: 'Fixed.' },
      ],
    });
    assert.deepEqual(record.incident, {
      id: '1',
      name: 'Incident with Codespaces',
      status: 'resolved',
      shortlink: 'https://www.githubstatus.com/incidents/x',
      started_at: '2022-03-26T01:43:00Z',
    });
    assert.deepEqual(record.components, [{ name: 'Codespaces' }]);
    assert.equal(record.updates[1].body, 'Fixed.');
    assert.equal('postmortem' in record, false);
    const validate = compileBody(IncidentUploadSchema);
    assert.equal(validate(structuredClone(record)), true, firstErrorMessage(validate, ''));
  });
});
