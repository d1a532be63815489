/**
 * The data converter of the API's Temporal clients: Temporal's default payload converter
 * (undefined, binary, JSON) with the JSON text encoded to and decoded from UTF-8 by Node's Buffer
 * instead of the SDK's own JavaScript encoder, which is written for the workflow sandbox (it has
 * no Buffer). A CPU profile of `npm run bench:isolation` showed that encoder holding the API's
 * event loop 40 to 100 ms per megabyte of an upload's batch as the workflow started. The payloads
 * are byte for byte the same (`json/plain`: the JSON text as UTF-8), so workers and workflows read
 * them as before.
 */
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

/** JSON payloads as the SDK's JsonPayloadConverter writes them, through Buffer. */
export class NodeJsonPayloadConverter implements PayloadConverterWithEncoding {
  readonly encodingType = JSON_ENCODING;

  toPayload(value: unknown): Payload | undefined {
    if (value === undefined) return undefined;
    let json: string;
    try {
      json = JSON.stringify(value);
    } catch {
      return undefined;
    }
    return { metadata: { encoding: Buffer.from(JSON_ENCODING) }, data: Buffer.from(json, 'utf8') };
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
