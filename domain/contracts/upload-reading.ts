/**
 * A large upload read from its bytes, on one of the API's CPU threads (domain/cpu/read-tasks.ts):
 * decoded, parsed, its envelope and each item checked as the event loop would (json-body.ts,
 * upload.ts), and each valid item written back as the JSON the workflow receives. The API's event
 * loop then holds only bytes: the items' JSON, one buffer with offsets, which the Temporal client
 * sends as they are (api/temporal-payloads.ts, RawJson), never a parsed 10 MB body and its garbage.
 */
import { articlesDelete, articlesUpload } from './article';
import { casesUpload } from './case';
import { checkedBody } from './json-body';
import { checkUploadItem, type UploadFailure, type UploadValidators } from './upload';

/** The uploads a thread can read, by the validators they use. */
const VALIDATORS: Record<UploadKind, UploadValidators<Record<string, unknown>>> = {
  articlesUpload,
  articlesDelete,
  casesUpload,
} as Record<UploadKind, UploadValidators<Record<string, unknown>>>;

export type UploadKind = 'articlesUpload' | 'articlesDelete' | 'casesUpload';

export interface UploadReadingInput {
  bytes: Uint8Array;
  kind: UploadKind;
  /** An item's most bytes as JSON (workflows/constants.ts, MAX_ITEM_BYTES). */
  maxItemBytes: number;
}

export type UploadReading =
  | { error: { status: 400 | 413; message: string } }
  | {
      /** Every valid item's JSON, back to back; item `i` is `json.subarray(ends[i - 1] ?? 0, ends[i])`. */
      json: Uint8Array;
      ends: number[];
      ids: string[];
      /** Items that failed their checks, and items too large for one workflow payload. */
      failed: UploadFailure[];
      tooBig: UploadFailure[];
    };

const encoder = new TextEncoder();

export function readUpload(input: UploadReadingInput): UploadReading {
  const validators = VALIDATORS[input.kind];
  const checked = checkedBody({ bytes: input.bytes, validate: validators.envelope, envelope: true });
  if ('error' in checked) return checked;
  const all = checked.body[validators.key] as Record<string, unknown>[];
  const parts: Uint8Array[] = [];
  const ends: number[] = [];
  const ids: string[] = [];
  const failed: UploadFailure[] = [];
  const tooBig: UploadFailure[] = [];
  let length = 0;
  for (const [index, candidate] of all.entries()) {
    const checked = checkUploadItem(validators, candidate, index);
    if ('failed' in checked) {
      failed.push(checked.failed);
      continue;
    }
    const id = String(checked.item[validators.idField]);
    const json = encoder.encode(JSON.stringify(checked.item));
    if (json.length > input.maxItemBytes) {
      tooBig.push({
        id,
        error: `/${validators.key}/${index} is ${json.length} bytes as JSON; one item may have at most ${input.maxItemBytes}`,
      });
      continue;
    }
    parts.push(json);
    length += json.length;
    ends.push(length);
    ids.push(id);
  }
  const json = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    json.set(part, offset);
    offset += part.length;
  }
  return { json, ends, ids, failed, tooBig };
}
