import assert from 'node:assert/strict';
import { defaultPayloadConverter } from '@temporalio/common';
import { apiDataConverter, RawJson } from '../../api/temporal-payloads';

const converter = apiDataConverter.payloadConverter;

/** Values of every JSON shape, with text outside ASCII, astral characters and a lone surrogate. */
const VALUES: unknown[] = [
  {
    tenant: 'acme',
    articles: [{ articleId: 'a-1', title: 'Café ☕', body: 'naïve 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \u0000 \u2028 "quoted" \\' }],
  },
  ['\ud800 lone', '\udfff', 'é'.repeat(1000)],
  'plain text',
  42,
  -0.5,
  true,
  null,
  { nested: { deeper: [1, [2, [3, { four: 'ы' }]]] } },
];

describe("the API clients' payload converter (api/temporal-payloads.ts)", () => {
  it("writes the SDK default converter's bytes and metadata for every value", () => {
    for (const value of VALUES) {
      const ours = converter.toPayload(value);
      const sdk = defaultPayloadConverter.toPayload(value);
      assert.deepEqual(Buffer.from(ours.data ?? []), Buffer.from(sdk.data ?? []), JSON.stringify(value));
      assert.deepEqual(
        Object.fromEntries(Object.entries(ours.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString()])),
        Object.fromEntries(Object.entries(sdk.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString()])),
      );
    }
  });

  it("reads the SDK default converter's payloads, and the SDK reads its own", () => {
    for (const value of VALUES) {
      const expected = JSON.parse(JSON.stringify(value));
      assert.deepEqual(converter.fromPayload(defaultPayloadConverter.toPayload(value)), expected);
      assert.deepEqual(defaultPayloadConverter.fromPayload(converter.toPayload(value)), expected);
    }
  });

  it('keeps undefined and binary values as the SDK does', () => {
    const bytes = new Uint8Array([0, 1, 255]);
    assert.deepEqual(converter.fromPayload(converter.toPayload(undefined)), undefined);
    assert.deepEqual(converter.toPayload(bytes), defaultPayloadConverter.toPayload(bytes));
  });

  it('reads a payload whose bytes are a view into a larger buffer', () => {
    const payload = converter.toPayload({ a: 'b' });
    const data = payload.data ?? new Uint8Array();
    const larger = new Uint8Array(data.length + 8);
    larger.set(data, 4);
    assert.deepEqual(converter.fromPayload({ ...payload, data: larger.subarray(4, 4 + data.length) }), { a: 'b' });
  });

  it("splices RawJson items in as their bytes: the same payload as the items' values would give", () => {
    const items = [
      { id: 'a', text: 'Café ☕ "q" \\ \u0000raw-0 𝔘' },
      { id: 'b', list: [1, { deep: '\u2028' }] },
    ];
    const raw = items.map((item) => new RawJson(Buffer.from(JSON.stringify(item))));
    for (const shape of [
      (v: unknown[]) => ({ tenant: 'acme', cases: v, tagTraining: { debounceMs: 5 } }),
      (v: unknown[]) => ({ only: v[0], tenant: 't' }),
    ]) {
      const spliced = converter.toPayload(shape(raw));
      const plain = defaultPayloadConverter.toPayload(shape(items));
      assert.deepEqual(Buffer.from(spliced.data ?? []), Buffer.from(plain.data ?? []));
    }
  });
});
