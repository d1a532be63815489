/**
 * The test stack's local chat model server (scripts/stack/chat_server.py: llama.cpp's
 * OpenAI-compatible server on the pinned Gemma 3 270M), called as the model engines call a
 * server: the OpenAI client, a strict JSON Schema, a bound on the reply.
 */
import { strict as assert } from 'node:assert';
import Ajv from 'ajv';
import { before, describe, it } from 'mocha';
import OpenAI from 'openai';
import { requireStack } from '../helpers/harness';

const SENTIMENT_SCHEMA = {
  type: 'object',
  properties: { sentiment: { type: 'integer', minimum: -100, maximum: 100 } },
  required: ['sentiment'],
  additionalProperties: false,
} as const;

describe('local chat model server', () => {
  let client: OpenAI;
  let model: string;

  before(() => {
    requireStack();
    const baseURL = process.env.TEST_CHAT_URL;
    model = process.env.TEST_CHAT_MODEL!;
    assert.ok(baseURL && model, 'TEST_CHAT_URL and TEST_CHAT_MODEL are set by `npm test`, which starts the server');
    client = new OpenAI({ baseURL, apiKey: 'local', maxRetries: 0, timeout: 90_000 });
  });

  it('lists the model it answers to', async () => {
    const models = await client.models.list();
    assert.deepEqual(
      models.data.map((m) => m.id),
      [model],
    );
  });

  it('answers a strict json_schema request with JSON its schema accepts, finish_reason stop and token usage', async () => {
    const res = await client.chat.completions.create({
      model,
      temperature: 0,
      max_tokens: 30,
      messages: [
        {
          role: 'system',
          content: 'Rate the sentiment of the customer message from -100 (angry) to 100 (delighted). Reply with JSON.',
        },
        { role: 'user', content: 'The delivery was late again and support never answered my emails.' },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'sentiment', strict: true, schema: SENTIMENT_SCHEMA },
      },
    });
    assert.equal(res.model, model);
    const [choice] = res.choices;
    assert.equal(choice.finish_reason, 'stop', JSON.stringify(choice.message.content));
    const reply = JSON.parse(choice.message.content ?? '');
    const valid = new Ajv().compile(SENTIMENT_SCHEMA);
    assert.ok(valid(reply), `${JSON.stringify(reply)}: ${JSON.stringify(valid.errors)}`);
    const usage = res.usage!;
    assert.ok(usage.prompt_tokens > 0, JSON.stringify(usage));
    assert.ok(usage.completion_tokens > 0 && usage.completion_tokens <= 30, JSON.stringify(usage));
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
  });

  it('stops a free-text reply at max_tokens with finish_reason length', async () => {
    const res = await client.chat.completions.create({
      model,
      temperature: 0,
      max_tokens: 5,
      messages: [{ role: 'user', content: 'Write a long story about a support agent and a dragon.' }],
    });
    assert.equal(res.choices[0].finish_reason, 'length');
    assert.equal(res.usage?.completion_tokens, 5);
  });
});
