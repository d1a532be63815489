/**
 * Batch uploads: the valid items of a request are cut into batches well under Temporal's 2 MiB
 * payload limit, one durable workflow per batch. All batches are started before any is awaited, so
 * once the request is accepted nothing in it is lost, even when the deadline answers 408 first.
 * Starting is bounded by the deadline too: a 408 then says the upload was not started, to be sent
 * again (it attaches to any batch already started).
 */
import { createHash } from 'node:crypto';
import type { IngestResult } from '../../domain/weaviate/ingest';
import { MAX_ITEM_BYTES, OPERATIONS, type Operation } from '../../workflows/constants';
import { uploads } from '../../domain/observability/metrics';
import type { CpuPool } from '../../domain/cpu/pool';
import type { UploadKind, UploadReading } from '../../domain/contracts/upload-reading';
import { ApiError, badRequest } from '../errors';
import { readLargeBody } from './read-cpu';
import { RawJson } from '../temporal-payloads';
import { nextTurn, stepped } from '../event-loop-steps';
import {
  allItemsInvalid,
  checkUploadItem,
  type UploadFailure,
  type UploadResult,
  type UploadValidators,
} from '../../domain/contracts/upload';
import type { OperationMiddleware } from '../request-state';
import type { WorkflowRunner } from '../workflow-runner';

/** Serialized bytes and items per batch. */
export const BATCH_LIMITS = { bytes: 512 * 1024, items: 100 };

/** Bytes of items as JSON, measured once per item (`oversized`, then `toBatches`). */
const measured = new WeakMap<object, number>();

/** The uploads counted as accepted (`supportai_uploads_total`): deletions are not. */
const UPLOAD_KINDS = new Map<Operation, 'articles' | 'cases'>([
  [OPERATIONS.upsertArticles, 'articles'],
  [OPERATIONS.upsertCases, 'cases'],
]);

/** Bytes of `item` as JSON. */
function jsonBytes(item: unknown): number {
  if (item instanceof RawJson) return item.bytes.length;
  const key = typeof item === 'object' && item !== null ? item : undefined;
  const known = key && measured.get(key);
  if (known !== undefined) return known;
  const bytes = Buffer.byteLength(JSON.stringify(item));
  if (key) measured.set(key, bytes);
  return bytes;
}

/** The failure of an item too large for one workflow payload, reported like a validation failure; undefined when it fits. */
function tooLarge(o: { item: unknown; pointer: string; id: string }): UploadFailure | undefined {
  const bytes = jsonBytes(o.item);
  if (bytes <= MAX_ITEM_BYTES) return undefined;
  return { id: o.id, error: `${o.pointer} is ${bytes} bytes as JSON; one item may have at most ${MAX_ITEM_BYTES}` };
}

/** A key naming some content: the same tenant sending the same content gets the same workflow id. */
export const contentKey = (json: string) => createHash('sha256').update(json).digest('hex').slice(0, 32);

/** contentKey of a batch: of its JSON, as the workflow receives it (a RawJson's bytes are that JSON already). */
function batchKey(batch: unknown[]): string {
  if (!(batch[0] instanceof RawJson)) return contentKey(JSON.stringify(batch));
  const hash = createHash('sha256').update('[');
  batch.forEach((item, i) => hash.update(i ? ',' : '').update((item as RawJson).bytes));
  return hash.update(']').digest('hex').slice(0, 32);
}

/** Splits items into batches bounded by serialized size and count, keeping their order. */
export function toBatches<T>(items: T[], limits = BATCH_LIMITS): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = jsonBytes(item);
    if (current.length > 0 && (current.length >= limits.items || bytes + size > limits.bytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** The last copy of each id wins, as storing them in order would do. */
export function lastById<T>(items: T[], idOf: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [idOf(item), item])).values()];
}

export interface UploadRun<T> {
  runner: WorkflowRunner;
  /** Declared as a method so that a workflow with a narrower input type fits. */
  workflow(input: { tenant: string } & Record<string, unknown>): Promise<IngestResult>;
  operation: Operation;
  tenant: string;
  /** The workflow input field carrying the batch: `articles` or `cases`. */
  field: string;
  items: T[];
  /** Items rejected by validation before any work started. */
  rejected: UploadFailure[];
  /** More workflow input, the same for every batch. */
  extra?: Record<string, unknown>;
  deadline: number;
  requestId?: string;
}

export async function runUpload<T>(o: UploadRun<T>): Promise<UploadResult> {
  const handles = [];
  const batches = toBatches(o.items);
  await nextTurn();
  try {
    for (const batch of batches) {
      handles.push(
        await o.runner.start({
          workflow: o.workflow,
          operation: o.operation,
          tenant: o.tenant,
          // Same tenant and same content: the same workflow id, so a retried request attaches to it.
          key: batchKey(batch),
          input: { ...o.extra, tenant: o.tenant, [o.field]: batch },
          attachToRunning: true,
          requestId: o.requestId,
          deadline: o.deadline,
        }),
      );
    }
  } catch (err) {
    throw withRejections(err, o.rejected);
  }
  const kind = UPLOAD_KINDS.get(o.operation);
  if (kind) uploads.inc({ kind, outcome: 'accepted' }, o.items.length);
  let results: IngestResult[];
  try {
    results = await Promise.all(handles.map((h) => o.runner.result(h, o.deadline, o.operation)));
  } catch (err) {
    throw withRejections(err, o.rejected);
  }
  const failed = [...o.rejected, ...results.flatMap((r) => r.failed)];
  return failed.length ? { result: 'partial', failed } : { result: 'success' };
}

/**
 * A 408 for an upload that also had invalid items says so: the accepted items are still stored,
 * but the rejected ones never will be, and the client would not learn that from the 408 alone.
 */
function withRejections(err: unknown, rejected: UploadFailure[]): unknown {
  if (!(err instanceof ApiError) || err.code !== 408 || rejected.length === 0) return err;
  const count = rejected.length === 1 ? '1 item was' : `${rejected.length} items were`;
  return new ApiError(408, `${err.message}; ${count} rejected and will not be stored, first: ${rejected[0].error}`);
}

/**
 * The handler of a batch-upload endpoint: checks each item, drops repeated ids (the last copy
 * wins), and runs the valid items through `workflow`, answering `{result, failed?}`.
 */
export function uploadHandler<T extends Record<string, unknown>>(o: {
  runner: WorkflowRunner;
  validators: UploadValidators<T>;
  /** The validators' name, for a CPU thread reading a large upload (domain/contracts/upload-reading.ts). */
  kind: UploadKind;
  /** The API's CPU threads; without them a large upload is read on the event loop. */
  cpu?: CpuPool;
  workflow: UploadRun<T>['workflow'];
  operation: Operation;
  field: string;
  extra?: Record<string, unknown>;
}): OperationMiddleware<'uploadArticles' | 'deleteArticles' | 'uploadCases'> {
  return async function uploadItems(ctx) {
    const { rawBody } = ctx.state;
    if (rawBody) {
      // Decoded, parsed and checked on a CPU thread; its valid items come back as JSON bytes.
      const reading = await readLargeBody({
        pool: o.cpu,
        tenant: ctx.state.auth.tenant,
        task: 'readUploadBody',
        input: { bytes: rawBody, kind: o.kind, maxItemBytes: MAX_ITEM_BYTES },
      });
      ctx.body = await runUpload({
        ...runOptions(reading),
        runner: o.runner,
        workflow: o.workflow,
        operation: o.operation,
        tenant: ctx.state.auth.tenant,
        field: o.field,
        extra: o.extra,
        deadline: ctx.state.deadline,
        requestId: ctx.state.requestId,
      });
      return;
    }
    // A large upload is checked an item at a time, the event loop served between them
    // (api/event-loop-steps.ts): an item of a megabyte is a few milliseconds of checks.
    const large = stepped(ctx.state);
    const all = ctx.state.input.body[o.validators.key] as Record<string, unknown>[];
    const items: T[] = [];
    const failed: UploadFailure[] = [];
    const tooBig: UploadFailure[] = [];
    for (const [index, candidate] of all.entries()) {
      if (large) await nextTurn();
      const checked = checkUploadItem<T>(o.validators, candidate, index);
      if ('failed' in checked) {
        failed.push(checked.failed);
        continue;
      }
      const id = String(checked.item[o.validators.idField]);
      const oversized = tooLarge({ item: checked.item, pointer: `/${o.validators.key}/${index}`, id });
      if (oversized) tooBig.push(oversized);
      else items.push(checked.item);
    }
    // As before stepping: no valid item is a 400 listing them; valid ones all too large, the first's size.
    if (items.length + tooBig.length === 0) throw badRequest(allItemsInvalid(failed));
    if (items.length === 0) throw badRequest(tooBig[0].error);
    const idOf = (item: T) => String(item[o.validators.idField]);
    ctx.body = await runUpload({
      runner: o.runner,
      workflow: o.workflow,
      operation: o.operation,
      tenant: ctx.state.auth.tenant,
      field: o.field,
      items: lastById(items, idOf),
      rejected: [...failed, ...tooBig],
      extra: o.extra,
      deadline: ctx.state.deadline,
      requestId: ctx.state.requestId,
    });
  };
}

/** The items and failures of a large upload as read, answered 400 as a small one would be when none is valid. */
function runOptions(reading: Extract<UploadReading, { json: Uint8Array }>): {
  items: RawJson[];
  rejected: UploadFailure[];
} {
  const { json, ends, ids, failed, tooBig } = reading;
  if (ids.length + tooBig.length === 0) throw badRequest(allItemsInvalid(failed));
  if (ids.length === 0) throw badRequest(tooBig[0].error);
  // The last copy of each id wins, at the place of its first.
  const kept = lastById(
    ids.map((_, i) => i),
    (i) => ids[i],
  );
  return {
    items: kept.map((i) => new RawJson(json.subarray(i ? ends[i - 1] : 0, ends[i]))),
    rejected: [...failed, ...tooBig],
  };
}
