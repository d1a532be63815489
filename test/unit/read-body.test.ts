/**
 * A large summary, sentiment or tag body read on a CPU thread (domain/contracts/read-body.ts)
 * answers as the event loop's reading does (api/middlewares/body.ts, validate.ts): the same
 * statuses and words, and the same cleaned body.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { checkJsonObject, checkSchema, jsonValue, BodyError } from '../../domain/contracts/json-body';
import { compileBody } from '../../domain/contracts/ajv';
import { READ_BODY_SCHEMAS, readBody, type ReadBodyOperation } from '../../domain/contracts/read-body';
import { namedSchemas, operation } from '../../api/schemas/operations';

/** What validate() on the event loop makes of the same body: the cleaned body, or the error. */
function onTheLoop(op: ReadBodyOperation, text: string): ReturnType<typeof readBody> {
  try {
    const body = jsonValue(text);
    checkJsonObject(body);
    checkSchema({ validate: compileBody(operation(op).body!, namedSchemas), body, envelope: false });
    return { body };
  } catch (err) {
    if (err instanceof BodyError) return { error: { status: err.status, message: err.message } };
    throw err;
  }
}

describe('reading a large summary, sentiment or tag body on a CPU thread (domain/contracts/read-body.ts)', () => {
  it("checks each operation's body against the schema of the operations table", () => {
    for (const op of Object.keys(READ_BODY_SCHEMAS) as ReadBodyOperation[])
      assert.equal(READ_BODY_SCHEMAS[op], operation(op).body, op);
  });

  it('answers every body as the event loop does', () => {
    const bodies: [ReadBodyOperation, string][] = [
      ['summarize', JSON.stringify({ subject: 'Printer', comments: [{ comment: 'It prints blank pages.' }] })],
      ['summarize', JSON.stringify({ subject: '   ' })],
      ['summarize', JSON.stringify({ description: 'x', unknown: 1 })],
      ['summarize', JSON.stringify({ comments: [{ comment: 5 }] })],
      ['summarize', '{"description": "\\ud800"}'],
      ['summarize', '{"__proto__": {}}'],
      ['summarize', '[1]'],
      ['summarize', '{"description": '],
      ['analyzeSentiment', JSON.stringify({ message: 'Thanks, that fixed it!' })],
      ['analyzeSentiment', JSON.stringify({ message: '' })],
      ['analyzeSentiment', JSON.stringify({})],
      ['tagConversation', JSON.stringify({ message: 'My card was declined.' })],
      ['tagConversation', JSON.stringify({ message: 'x', extra: true })],
    ];
    for (const [op, text] of bodies) {
      const reading = readBody({ bytes: Buffer.from(text), operation: op });
      assert.deepEqual(reading, onTheLoop(op, text), `${op} ${text.slice(0, 60)}`);
    }
    assert.deepEqual(readBody({ bytes: new Uint8Array([0x7b, 0xff, 0x7d]), operation: 'summarize' }), {
      error: { status: 400, message: 'request body is not valid UTF-8' },
    });
  });
});
