import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { compileBody, compileParams, firstErrorMessage, formatAjvError } from '../../domain/contracts/ajv';

describe('formatAjvError', () => {
  const body = compileBody({
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: {
      data: {
        type: 'array',
        items: {
          type: 'object',
          required: ['a~b/c'],
          properties: { 'a~b/c': { type: 'string' }, kind: { type: 'string', enum: ['x', 'y'] } },
        },
      },
      numResults: { type: 'integer', maximum: 100 },
    },
  });
  const params = compileParams({
    type: 'object',
    required: ['text'],
    properties: { text: { type: 'string' }, limit: { type: 'integer', maximum: 100 } },
  });

  const messageFor = (data: unknown, root = '') => {
    assert.equal(body(data), false);
    return firstErrorMessage(body, root);
  };

  it('names a missing body field by its JSON pointer, escaping ~ and /', () => {
    assert.equal(messageFor({ data: [{ 'a~b/c': 'ok' }, {}] }), '/data/1/a~0b~1c is required');
    assert.equal(messageFor({}), '/data is required');
  });

  it('states the violated bound or type', () => {
    assert.equal(messageFor({ data: [], numResults: 101 }), '/numResults must be <= 100');
    assert.equal(messageFor({ data: 'x' }), '/data must be array');
  });

  it('lists the allowed values of an enum', () => {
    assert.equal(messageFor({ data: [{ 'a~b/c': '', kind: 'z' }] }), '/data/0/kind must be one of: x, y');
  });

  it('prefixes a JSON pointer root, as for one item of an upload', () => {
    const item = compileBody({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } });
    assert.equal(item({}), false);
    assert.equal(firstErrorMessage(item, '/data/3'), '/data/3/id is required');
  });

  it('names query parameters and headers after a label', () => {
    assert.equal(params({ text: 'a', limit: '101' }), false);
    assert.equal(firstErrorMessage(params, 'query parameter'), 'query parameter limit must be <= 100');
    assert.equal(params({}), false);
    assert.equal(formatAjvError(params.errors![0], 'query parameter'), 'query parameter text is required');
  });

  it('coerces query strings to the declared type', () => {
    const query: Record<string, unknown> = { text: 'a', limit: '7' };
    assert.equal(params(query), true);
    assert.equal(query.limit, 7);
  });
});
