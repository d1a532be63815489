/**
 * The data converter of the API's Temporal clients: Temporal's default payload converter
 * (undefined, binary, JSON) with the JSON text encoded to and decoded from UTF-8 by Node's Buffer
 * instead of the SDK's own JavaScript encoder, which is written for the workflow sandbox (it has
 * no Buffer). A CPU profile of `npm run bench:isolation` showed that encoder holding the API's
 * event loop 40 to 100 ms per megabyte of an upload's batch as the workflow started. The payloads
 * are byte for byte the same (`json/plain`: the JSON text as UTF-8), so workers and workflows read
 * them as before.
 */
import { randomBytes } from 'node:crypto';
import {
  BinaryPayloadConverter,
  CompositePayloadConverter,
  defaultFailureConverter,
  UndefinedPayloadConverter,
  ValueError,
  type LoadedDataConverter,
  type Payload,
  type PayloadConverterWithEncoding,
} from '@temporalio/common';

const JSON_ENCODING = 'json/plain';

/**
 * A value already written as JSON (UTF-8 bytes), put in a workflow's input where its value goes:
 * the converter copies the bytes in as they are, so a large upload's items, read and checked on a
 * CPU thread (domain/contracts/upload-reading.ts), are never parsed or written again on the event
 * loop. The bytes must be one JSON value. It is looked for only as a property of the input or an
 * element of a property that is an array (`{tenant, cases: [RawJson, ...]}`).
 */
export class RawJson {
  constructor(readonly bytes: Uint8Array) {}
}

/** A RawJson's place in the JSON text until its bytes replace it: a string of a NUL and a nonce no other value has. */
const RAW_NONCE = randomBytes(8).toString('hex');
const rawPlace = (index: number) => `\u0000raw-${RAW_NONCE}-${index}`;
/** The place as JSON.stringify writes it (the NUL as the six characters \u0000). */
const RAW_PLACE = new RegExp(`"\\\\u0000raw-${RAW_NONCE}-(\\d+)"`, 'g');

const holdsRawJson = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  Object.values(value).some((v) => v instanceof RawJson || (Array.isArray(v) && v[0] instanceof RawJson));

/** The UTF-8 JSON of `value`, each RawJson in it spliced in as its bytes. */
function jsonBytes(value: unknown): Buffer {
  if (!holdsRawJson(value)) return Buffer.from(JSON.stringify(value), 'utf8');
  const raws: RawJson[] = [];
  const json = JSON.stringify(value, (_key, v: unknown) => (v instanceof RawJson ? rawPlace(raws.push(v) - 1) : v));
  const parts: Uint8Array[] = [];
  let last = 0;
  for (const match of json.matchAll(RAW_PLACE)) {
    parts.push(Buffer.from(json.slice(last, match.index), 'utf8'), raws[Number(match[1])].bytes);
    last = match.index + match[0].length;
  }
  parts.push(Buffer.from(json.slice(last), 'utf8'));
  return Buffer.concat(parts);
}

/** JSON payloads as the SDK's JsonPayloadConverter writes them, through Buffer. */
export class NodeJsonPayloadConverter implements PayloadConverterWithEncoding {
  readonly encodingType = JSON_ENCODING;

  toPayload(value: unknown): Payload | undefined {
    if (value === undefined) return undefined;
    let data: Buffer;
    try {
      data = jsonBytes(value);
    } catch {
      return undefined;
    }
    return { metadata: { encoding: Buffer.from(JSON_ENCODING) }, data };
  }

  fromPayload<T>(payload: Payload): T {
    const data = payload.data;
    if (data === undefined || data === null) throw new ValueError('Got payload with no data');
    return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as T;
  }
}

/** For `new Client({ dataConverter })`. */
export const apiDataConverter: LoadedDataConverter = {
  payloadConverter: new CompositePayloadConverter(
    new UndefinedPayloadConverter(),
    new BinaryPayloadConverter(),
    new NodeJsonPayloadConverter(),
  ),
  failureConverter: defaultFailureConverter,
  payloadCodecs: [],
};
