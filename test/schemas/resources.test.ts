import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { AnySchemaObject } from 'ajv';
import { compileBody, compileParams, firstErrorMessage } from '../../domain/contracts/ajv';
import { ArticleSchema } from '../../domain/contracts/article';
import { AskRequestSchema, AskResponseSchema } from '../../domain/contracts/ask';
import { CaseSchema } from '../../domain/contracts/case';
import { ErrorBodySchema } from '../../domain/contracts/common';
import { EvaluateRequestSchema, EvaluateResponseSchema } from '../../domain/contracts/evaluation';
import { FeedbackRequestSchema } from '../../domain/contracts/feedback';
import { IncidentUploadSchema } from '../../domain/contracts/incident';
import { namedSchemas } from '../../api/schemas/operations';
import { SearchArticlesQuerySchema, SearchCasesRequestSchema } from '../../domain/contracts/search';
import { SentimentRequestSchema, SentimentResponseSchema } from '../../domain/contracts/sentiment';
import { SummaryRequestSchema } from '../../domain/contracts/summary';
import { TagRequestSchema, TagResponseSchema } from '../../domain/contracts/tag';
import { UploadResultSchema } from '../../domain/contracts/upload';

/** Validates `data` (mutating it, as routes do) and returns null or the 400 message. */
function check(schema: AnySchemaObject, data: unknown): string | null {
  const validateFn = compileBody(schema, namedSchemas);
  return validateFn(data) ? null : firstErrorMessage(validateFn, '');
}

const article = () => ({
  articleId: 'kb-1',
  url: 'https://help.example.com/kb/1',
  title: 'Reset your password',
  body: '# Reset\nGo to settings.',
  timeOfCreation: 1714560000000,
  timeLastPublished: 1714560000001,
});

const supportCase = () => ({
  id: 'case-1',
  subject: 'Cannot log in',
  description: 'Since Monday',
  status: 'open',
  priority: 'high',
  type: 'question',
  brand_id: 'b1',
  form_id: 'f1',
  tags: ['login'],
  timeOfCreation: 1714560000000,
  comments: [{ commentId: 'c1', comment: 'Hi', commenter: 'ana@example.com', isPublic: true, timeOfCreation: 1 }],
  url: 'https://support.example.com/cases/1',
  custom_fields: { productId: 'p1', nested: { any: ['thing'] } },
  kb_links: ['https://help.example.com/kb/1'],
  source: 'email',
  spam: false,
});

describe('schemas', () => {
  it('every named schema compiles in strict mode and has a unique $id', () => {
    const ids = namedSchemas.map((s) => s.$id);
    assert.equal(new Set(ids).size, ids.length);
    for (const schema of namedSchemas) compileBody(schema, namedSchemas);
  });

  describe('Article', () => {
    it('accepts a spec-valid article, with optional language and productId', () => {
      assert.equal(check(ArticleSchema, article()), null);
      assert.equal(check(ArticleSchema, { ...article(), language: 'de', productId: 'p1' }), null);
      assert.equal(check(ArticleSchema, { ...article(), language: 'en-US' }), null);
    });

    it('requires every field but language', () => {
      for (const field of ['articleId', 'url', 'title', 'body', 'timeOfCreation', 'timeLastPublished']) {
        const data: Record<string, unknown> = article();
        delete data[field];
        assert.equal(check(ArticleSchema, data), `/${field} is required`);
      }
    });

    it('rejects a relative url, a fractional or negative timestamp, a bad language', () => {
      assert.equal(check(ArticleSchema, { ...article(), url: 'kb/1' }), '/url must be an http or https URL');
      assert.equal(check(ArticleSchema, { ...article(), timeOfCreation: 1.5 }), '/timeOfCreation must be integer');
      assert.equal(check(ArticleSchema, { ...article(), timeLastPublished: -1 }), '/timeLastPublished must be >= 0');
      assert.match(check(ArticleSchema, { ...article(), language: 'english' })!, /^\/language must match pattern/);
    });

    it('accepts only http and https URLs', () => {
      for (const url of [
        'javascript:alert(1)',
        'data:text/html,<script>x</script>',
        'file:///etc/passwd',
        'ftp://files.example.com/a',
      ]) {
        assert.equal(check(ArticleSchema, { ...article(), url }), '/url must be an http or https URL', url);
      }
      assert.equal(check(ArticleSchema, { ...article(), url: 'HTTP://help.example.com/a' }), null);
    });

    it('refuses epoch times beyond 2^53 - 1, which JSON numbers cannot carry exactly', () => {
      assert.equal(check(ArticleSchema, { ...article(), timeOfCreation: Number.MAX_SAFE_INTEGER }), null);
      assert.equal(
        check(ArticleSchema, { ...article(), timeOfCreation: JSON.parse('9007199254740993') }),
        '/timeOfCreation must be <= 9007199254740991',
      );
    });

    it('bounds string lengths', () => {
      assert.equal(
        check(ArticleSchema, { ...article(), articleId: 'x'.repeat(513) }),
        '/articleId must NOT have more than 512 characters',
      );
      assert.equal(check(ArticleSchema, { ...article(), articleId: '' }), '/articleId must not be empty');
    });

    it('strips unknown fields instead of rejecting them', () => {
      const data = { ...article(), author: 'someone', extra: { a: 1 } };
      assert.equal(check(ArticleSchema, data), null);
      assert.deepEqual(data, article());
    });
  });

  describe('Case', () => {
    it('accepts every spec field, snake_case included', () => {
      assert.equal(check(CaseSchema, supportCase()), null);
      assert.equal(check(CaseSchema, { id: 'only-id' }), null);
    });

    it('requires id and the required CaseComment fields', () => {
      const { id: _id, ...noId } = supportCase();
      assert.equal(check(CaseSchema, noId), '/id is required');
      const data = supportCase();
      data.comments.push({ comment: 'x', commenter: 'y', timeOfCreation: 2 } as never);
      assert.equal(check(CaseSchema, data), '/comments/1/commentId is required');
    });

    it('keeps custom_fields free-form while stripping unknown fields elsewhere', () => {
      const data = { ...supportCase(), unknown: 1, comments: [{ ...supportCase().comments[0], likes: 3 }] };
      assert.equal(check(CaseSchema, data), null);
      assert.deepEqual(data, supportCase());
    });

    it('rejects wrong types', () => {
      assert.equal(check(CaseSchema, { id: 'c', spam: 'no' }), '/spam must be boolean');
      assert.equal(check(CaseSchema, { id: 'c', kb_links: ['not a uri'] }), '/kb_links/0 must be an http or https URL');
      assert.equal(check(CaseSchema, { id: 'c', custom_fields: [] }), '/custom_fields must be object');
      assert.equal(check(CaseSchema, { id: 'c', url: 'javascript:alert(1)' }), '/url must be an http or https URL');
    });

    it('bounds how deep custom_fields may nest, without recursion', () => {
      const nested = (levels: number) => JSON.parse(`{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`);
      assert.equal(check(CaseSchema, { id: 'c', custom_fields: nested(32) }), null);
      assert.equal(
        check(CaseSchema, { id: 'c', custom_fields: nested(33) }),
        '/custom_fields nests objects or arrays deeper than 32 levels',
      );
      assert.equal(
        check(CaseSchema, { id: 'c', custom_fields: nested(100_000) }),
        '/custom_fields nests objects or arrays deeper than 32 levels',
      );
    });
  });

  describe('IncidentUpload', () => {
    const incident = () => ({
      incident: {
        id: 'inc-1',
        name: 'API degraded',
        status: 'resolved',
        shortlink: 'https://stspg.io/x',
        started_at: '2024-05-01T10:00:00Z',
        updated_at: '2024-05-01T12:00:00.000+02:00',
      },
      components: [{ id: 'api', name: 'API', status: 'operational', last_updated_at: '2024-05-01T12:00:00Z' }],
      updates: [
        {
          impact: 'major',
          status: 'resolved',
          body: 'Fixed.',
          created_at: '2024-05-01T12:00:00Z',
          affected_components: [{ name: 'API', old_status: 'major_outage', new_status: 'operational' }],
        },
      ],
      postmortem: { body: 'Root cause', anything: [1, 2] },
    });

    it('accepts a status-page incident', () => {
      assert.equal(check(IncidentUploadSchema, incident()), null);
      assert.equal(check(IncidentUploadSchema, { incident: {}, components: [], updates: [] }), null);
    });

    it('requires incident, components, updates and checks date-times', () => {
      const { updates: _updates, ...noUpdates } = incident();
      assert.equal(check(IncidentUploadSchema, noUpdates), '/updates is required');
      const data = incident();
      data.updates[0].created_at = 'yesterday';
      assert.equal(check(IncidentUploadSchema, data), '/updates/0/created_at must match format "date-time"');
    });
  });

  describe('requests', () => {
    it('ask: query required, author enum', () => {
      assert.equal(check(AskRequestSchema, { query: 'How do I reset?', productId: 'p', author: 'agent' }), null);
      assert.equal(check(AskRequestSchema, { author: 'agent' }), '/query is required');
      assert.equal(check(AskRequestSchema, { query: 'q', author: 'bot' }), '/author must be one of: agent, customer');
    });

    it('summary: every field optional, format defaults to markdown', () => {
      const data: Record<string, unknown> = { comments: [{ comment: 'hello' }] };
      assert.equal(check(SummaryRequestSchema, data), null);
      assert.equal(data.format, 'markdown');
      assert.equal(
        check(SummaryRequestSchema, { subject: 'x', format: 'pdf' }),
        '/format must be one of: markdown, html',
      );
      assert.equal(check(SummaryRequestSchema, { subject: 'x', comments: [{}] }), '/comments/0/comment is required');
    });

    it('states the cross-field rules in the schema, with their own messages', () => {
      const noText = 'at least one of /subject, /description, /comments must be non-empty';
      for (const body of [{}, { subject: ' ' }, { comments: [{ comment: '\n' }] }, { format: 'html' }])
        assert.equal(check(SummaryRequestSchema, body), noText);
      for (const body of [
        { description: 'd' },
        { comments: [{ comment: '' }, { comment: 'hi' }] },
        { conversationId: 'c1' },
      ])
        assert.equal(check(SummaryRequestSchema, body), null);
      const noQuery = 'at least one of /query or /conversationId is required';
      for (const body of [{}, { query: '  ' }, { numResults: 3 }])
        assert.equal(check(SearchCasesRequestSchema, body), noQuery);
      for (const body of [{ query: 'x' }, { query: ' ', conversationId: 'c' }])
        assert.equal(check(SearchCasesRequestSchema, body), null);
      const both = { messages: [{ role: 'user', content: 'q' }], output: 'a', rules: [], use_case: 'default' };
      assert.equal(check(EvaluateRequestSchema, both), 'send either /rules or /use_case, not both');
    });

    it('feedback: id and feedbackDetails required', () => {
      assert.equal(check(FeedbackRequestSchema, { id: 'a1', feedbackDetails: '+1 great' }), null);
      assert.equal(check(FeedbackRequestSchema, { id: 'a1' }), '/feedbackDetails is required');
    });

    it('tag and sentiment: message required and non-empty, conversationId optional', () => {
      for (const schema of [TagRequestSchema, SentimentRequestSchema]) {
        assert.equal(check(schema, { message: 'I am upset', conversationId: 't-1' }), null);
        assert.equal(check(schema, { conversationId: 't-1' }), '/message is required');
        assert.equal(check(schema, { message: '' }), '/message must not be empty');
      }
    });

    it('case search: numResults 1..100 default 4, offset >= 0, limit 1..100', () => {
      const data: Record<string, unknown> = { query: 'login', productId: 'a, b', filterUrls: ['https://x'] };
      assert.equal(check(SearchCasesRequestSchema, data), null);
      assert.equal(data.numResults, 4);
      assert.equal(data.limit, undefined, 'no limit default: sending limit selects pagination mode');
      assert.equal(check(SearchCasesRequestSchema, { query: 'q', numResults: 101 }), '/numResults must be <= 100');
      assert.equal(check(SearchCasesRequestSchema, { query: 'q', numResults: 0 }), '/numResults must be >= 1');
      assert.equal(check(SearchCasesRequestSchema, { query: 'q', offset: -1 }), '/offset must be >= 0');
      assert.equal(check(SearchCasesRequestSchema, { query: 'q', limit: '5' }), '/limit must be integer');
    });

    it('article search query: text required, limit default 25 and at most 100, strings coerced', () => {
      const validateQuery = compileParams(SearchArticlesQuerySchema);
      const query: Record<string, unknown> = { text: 'reset', offset: '10', unknown: 'x' };
      assert.equal(validateQuery(query), true);
      assert.deepEqual(query, { text: 'reset', offset: 10, limit: 25 });
      assert.equal(validateQuery({ text: 'a', limit: '101' }), false);
      assert.equal(firstErrorMessage(validateQuery, 'query parameter'), 'query parameter limit must be <= 100');
      assert.equal(validateQuery({}), false);
      assert.equal(firstErrorMessage(validateQuery, 'query parameter'), 'query parameter text is required');
    });

    it('evaluate: rules up to 100, severity enum, defaults for category and severity', () => {
      const data = {
        messages: [{ role: 'user', content: 'hi' }],
        output: 'hello',
        rules: [{ id: 'r1', description: 'Must greet' }],
      };
      assert.equal(check(EvaluateRequestSchema, data), null);
      assert.deepEqual(data.rules[0], { id: 'r1', description: 'Must greet', category: 'Custom', severity: 'warning' });
      const tooMany = { ...data, rules: Array.from({ length: 101 }, (_, i) => ({ id: `r${i}`, description: 'd' })) };
      assert.equal(check(EvaluateRequestSchema, tooMany), '/rules must NOT have more than 100 items');
      const badSeverity = { ...data, rules: [{ id: 'r', description: 'd', severity: 'fatal' }] };
      assert.equal(
        check(EvaluateRequestSchema, badSeverity),
        '/rules/0/severity must be one of: critical, warning, info',
      );
      assert.equal(check(EvaluateRequestSchema, { ...data, use_case: 'support', rules: undefined }), null);
    });
  });

  describe('responses', () => {
    it('accept the bodies the decisions describe', () => {
      const askAnswer = {
        mdText: 'See [Reset](https://x)',
        htmltext: '<a href="https://x">Reset</a>',
        source: 'articles',
        plaintext: 'See Reset',
        id: 'ans-1',
        responseType: 'ai-answer-with-kb-links',
        intentTag: null,
        linksTitle: 'Sources',
        links: [{ text: 'Reset', url: 'https://x' }],
        urls: null,
      };
      assert.equal(check(AskResponseSchema, askAnswer), null);
      assert.equal(check(TagResponseSchema, { tags: [{ name: 'billing', score: 0.9, source: 'trained' }] }), null);
      assert.equal(check(SentimentResponseSchema, { sentiment: -100, label: 'Negative' }), null);
      assert.equal(check(UploadResultSchema, { result: 'partial', failed: [{ id: '/data/3', error: 'x' }] }), null);
      assert.equal(check(ErrorBodySchema, { error: 'x', code: 429, status: 'RESOURCE_EXHAUSTED' }), null);
      const graded = {
        correctness: { verdict: 'correct', score: 4.5, explanation: 'fine' },
        rules: [{ ruleId: 'r1', outcome: 'not_applicable', explanation: 'n/a' }],
        judge: 'judge-model',
      };
      assert.equal(check(EvaluateResponseSchema, graded), null);
    });

    it('reject out-of-range values', () => {
      assert.equal(check(SentimentResponseSchema, { sentiment: 101, label: 'Positive' }), '/sentiment must be <= 100');
      const sixTags = Array.from({ length: 6 }, () => ({ name: 't', score: 0.5, source: 'model' }));
      assert.equal(check(TagResponseSchema, { tags: sixTags }), '/tags must NOT have more than 5 items');
      assert.equal(
        check(TagResponseSchema, { tags: [{ name: 't', score: 1.5, source: 'model' }] }),
        '/tags/0/score must be <= 1',
      );
    });
  });
});
