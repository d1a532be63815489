import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import { buildOpenApiDocument } from '../../api/schemas/openapi';
import { operations } from '../../api/schemas/operations';

type Json = Record<string, any>;

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument();

  it('is a valid OpenAPI 3.1 document', async () => {
    // validate() resolves refs in place, so give it a copy.
    const result = await validate(structuredClone(doc) as never);
    assert.equal(result.valid, true, JSON.stringify(result));
    assert.equal(doc.openapi, '3.1.0');
  });

  it('carries the API version 1.2.0', () => {
    assert.equal(doc.info.version, '1.2.0');
  });

  it('lists the twelve operations of the spec with their paths and methods', () => {
    const listed = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    assert.deepEqual(listed, [
      'DELETE /v1/articles',
      'GET /v1/community/search/articles',
      'POST /v1/articles',
      'POST /v1/assistant/ask',
      'POST /v1/cases',
      'POST /v1/control/autoeval/evaluate',
      'POST /v1/feedback',
      'POST /v1/incidents',
      'POST /v1/search/cases',
      'POST /v1/sentiment',
      'POST /v1/summary',
      'POST /v1/tag',
    ]);
    assert.equal(operations.length, 12);
  });

  it('documents the spec success statuses: 201 for incidents, 200 elsewhere', () => {
    assert.deepEqual(Object.keys(doc.paths['/v1/incidents'].post.responses as Json).slice(0, 1), ['201']);
    assert.ok((doc.paths['/v1/control/autoeval/evaluate'].post.responses as Json)['200']);
  });

  it('serves /openapi.json, /healthz and /readyz without authentication', () => {
    for (const path of ['/openapi.json', '/healthz', '/readyz']) assert.deepEqual(doc.paths[path].get.security, []);
    assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
    const { type, scheme } = doc.components.securitySchemes.bearerAuth;
    assert.deepEqual({ type, scheme }, { type: 'http', scheme: 'bearer' });
  });

  it('shows the full item schema of uploads and rewrites refs to components', () => {
    const upload = doc.components.schemas.CasesUploadRequest as Json;
    assert.deepEqual(upload.properties.data.items, { $ref: '#/components/schemas/Case' });
    assert.equal(
      (doc.components.schemas.Case as Json).properties.comments.items.$ref,
      '#/components/schemas/CaseComment',
    );
    assert.ok(JSON.stringify(doc).indexOf('"$id"') === -1, 'no $id left in the document');
  });

  it('gives every error the ErrorBody schema, marks additions, and sets Retry-After on 429', () => {
    const ask = doc.paths['/v1/assistant/ask'].post.responses as Json;
    assert.equal(ask['400'].content['application/json'].schema.$ref, '#/components/schemas/ErrorBody');
    assert.match(ask['403'].description, /^Addition: /);
    assert.doesNotMatch(ask['408'].description, /^Addition/);
    assert.ok(ask['429'].headers['Retry-After']);
    assert.ok(ask['200'].headers['Chat-Identifier']);
    const uploads = doc.paths['/v1/articles'].post.responses as Json;
    assert.match(uploads['413'].description, /^Addition: /);
  });

  it('refuses the key __proto__ at any depth of a request, in unknown fields too, as the body parser does', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(structuredClone(doc), 'doc');
    const validCases = ajv.getSchema('doc#/components/schemas/CasesUploadRequest')!;
    const comment = { commentId: 'c1', comment: 'hi', commenter: 'a', timeOfCreation: 1 };
    const body = (extra: string) =>
      JSON.parse(
        `{"data": [{"id": "1", "comments": [{"commentId": "c1", "comment": "hi", "commenter": "a", "timeOfCreation": 1, "m": ${extra}}]}]}`,
      );
    assert.equal(validCases({ data: [{ id: '1', comments: [comment] }] }), true);
    assert.equal(validCases(body('{"a": [{"b": 1}]}')), true, 'unknown fields of any shape are accepted');
    assert.equal(validCases(body('{"__proto__": 1}')), false, 'nested in an unknown field');
    assert.equal(validCases(body('[[{"x": {"__proto__": null}}]]')), false, 'deep inside arrays');
    assert.equal(
      validCases(JSON.parse('{"data": [{"id": "1", "custom_fields": {"a": {"__proto__": 1}}}]}')),
      false,
      'inside a free-form object',
    );
  });

  it("states a cross-field rule's shapes bare, so the fuzzer's generator need not throw most draws away", () => {
    const evaluate = doc.components.schemas.EvaluateRequest as Json;
    assert.deepEqual(evaluate.not, { type: 'object', required: ['rules', 'use_case'] });
    const shapes: Json[] = [];
    const collect = (value: unknown, inShape: boolean) => {
      if (typeof value !== 'object' || value === null) return;
      for (const [key, child] of Object.entries(value)) {
        const shape = inShape || ['not', 'anyOf', 'oneOf', 'allOf'].includes(key);
        if (shape && child && typeof child === 'object' && !Array.isArray(child)) shapes.push(child as Json);
        collect(child, shape);
      }
    };
    for (const name of ['EvaluateRequest', 'SummaryRequest', 'SearchCasesRequest'])
      collect(doc.components.schemas[name], false);
    assert.ok(shapes.length > 0);
    for (const shape of shapes)
      assert.ok(!('propertyNames' in shape) && !('additionalProperties' in shape), JSON.stringify(shape));
  });

  it('documents query parameters and headers', () => {
    const params = doc.paths['/v1/community/search/articles'].get.parameters as Json[];
    const byName = Object.fromEntries(params.map((p) => [p.name, p]));
    assert.equal(byName.text.in, 'query');
    assert.equal(byName.text.required, true);
    assert.equal(byName.limit.schema.maximum, 100);
    assert.equal(byName['X-Business-Id'].in, 'header');
    assert.equal(byName['X-Business-Id'].required, true);
  });
});
