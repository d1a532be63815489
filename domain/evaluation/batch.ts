/**
 * Batch evaluation activities (workflows/eval-batch.ts). The import file is passed by reference:
 * its path, readable by the worker, never its content, so no payload or history holds records.
 * - `planEvalImport` reads the file once and cuts it into chunks of lines, by byte range.
 * - `gradeImportChunk` reads one chunk (domain/evaluation/jsonl-lines.ts: a line too long to
 *   grade is counted as it streams past, never held), validates each line (a bad line is counted
 *   with its line number and skipped), skips records the tenant already has a result for, grades
 *   the others with the judge (model or built-in), redacts everything it stores, and stores the
 *   results. A retried chunk therefore grades only what is not stored yet: each record is stored
 *   once.
 * - `purgeExpiredResults` deletes results older than their use case's `logging.retention_days`.
 */
import fs from 'node:fs';
import type { WeaviateClient } from 'weaviate-client';
import { LINE_TOO_LONG, MAX_LINE_BYTES, parseLoggedCall, type LoggedCall } from '../contracts/logged-call';
import type { Rule } from '../contracts/evaluation';
import type { ChatGateway } from '../models/chat';
import type { Embedder } from '../models/embeddings';
import {
  deleteResultsBefore,
  evalTenants,
  gradedRecordIds,
  insertResults,
  resultUseCases,
} from '../weaviate/eval-results';
import { evaluate } from './evaluate';
import { asksOnTopic, topicSimilarities } from './topic';
import type { Progress } from '../progress';
import type { Redaction } from './redact';
import type { EvalResult, Grading } from './results';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE_TYPES } from '../failures';
import type { CpuPool } from '../cpu/pool';
import type { GradingCounts } from './batch-counts';
import { readJsonlLines, type JsonlLine } from './jsonl-lines';
import { DEFAULT_RETENTION_DAYS, type UseCaseStore } from './use-cases';

export interface ImportChunk {
  index: number;
  /** Byte range of the chunk's lines, and the number of its first line (1-based). */
  start: number;
  end: number;
  firstLine: number;
  lines: number;
}

export interface ChunkOutcome extends GradingCounts {
  lines: number;
  /** The first problems, with their line numbers. */
  problems: ImportProblem[];
}

export interface ImportProblem {
  line: number;
  kind: 'invalid' | 'failed' | 'duplicate';
  error: string;
}

const MAX_PROBLEMS = 20;
/** Bytes of one chunk at most (a chunk is read into memory at once); a longer line is alone. */
const MAX_CHUNK_BYTES = 16 * 1024 * 1024;

interface Deps {
  weaviate: () => Promise<WeaviateClient>;
  chat: ChatGateway;
  /** For the on-topic rule's similarity (domain/evaluation/topic.ts). */
  embedder?: Embedder;
  useCases: UseCaseStore;
  cpu: CpuPool;
  signal?: AbortSignal;
  progress?: Progress;
}

/** Cuts the file into chunks of `chunkLines` lines, by byte offsets (one pass, streamed). */
export async function planEvalImport(
  deps: { progress?: Progress },
  input: { path: string; chunkLines: number },
): Promise<{ lines: number; bytes: number; chunks: ImportChunk[] }> {
  const chunks: ImportChunk[] = [];
  let offset = 0;
  let lines = 0;
  let chunkStart = 0;
  let chunkFirst = 1;
  let inChunk = 0;
  let lastByte = 10;
  for await (const buffer of fs.createReadStream(input.path) as AsyncIterable<Buffer>) {
    for (let i = 0; i < buffer.length; i++) {
      if (buffer[i] !== 10) continue;
      lines += 1;
      inChunk += 1;
      // A chunk ends at its line count, or earlier when its bytes would make a large read.
      if (inChunk === input.chunkLines || offset + i + 1 - chunkStart >= MAX_CHUNK_BYTES) {
        chunks.push({
          index: chunks.length,
          start: chunkStart,
          end: offset + i + 1,
          firstLine: chunkFirst,
          lines: inChunk,
        });
        chunkStart = offset + i + 1;
        chunkFirst = lines + 1;
        inChunk = 0;
      }
    }
    offset += buffer.length;
    if (buffer.length) lastByte = buffer[buffer.length - 1];
    deps.progress?.({ phase: 'planning', bytes: offset });
  }
  if (lastByte !== 10 && offset > 0) {
    lines += 1;
    inChunk += 1;
  }
  if (inChunk > 0)
    chunks.push({ index: chunks.length, start: chunkStart, end: offset, firstLine: chunkFirst, lines: inChunk });
  return { lines, bytes: offset, chunks };
}

/** The chunk's lines; a line too long to grade is counted, never read into memory. */
async function readChunk(path: string, chunk: ImportChunk): Promise<JsonlLine[]> {
  const lines: JsonlLine[] = [];
  for await (const line of readJsonlLines({
    path,
    start: chunk.start,
    end: chunk.end,
    firstLine: chunk.firstLine,
    maxBytes: MAX_LINE_BYTES,
  }))
    lines.push(line);
  return lines;
}

const redactionCount = (r: Redaction) => Object.values(r.counts).reduce((a, b) => a + (b ?? 0), 0);

/**
 * A record as stored: every text redacted (on a CPU thread), the grading's explanations too (they
 * may quote the output). `redactions` counts what was found in the call itself.
 */
async function storedResult(
  deps: Pick<Deps, 'cpu' | 'signal'>,
  o: {
    record: LoggedCall;
    runId: string;
    useCase: string;
    importedAt: number;
    grading: Grading;
    rules: { id: string; severity?: string; category?: string }[];
  },
): Promise<EvalResult> {
  const { record, grading } = o;
  const texts = [
    ...record.messages.map((m) => m.content),
    record.output,
    grading.correctness.explanation,
    ...grading.rules.map((r) => r.explanation),
  ];
  const clean = await deps.cpu.run({ task: 'redactTexts', input: { texts }, signal: deps.signal });
  const messages = record.messages.map((m, i) => ({ role: m.role, content: clean[i].text }));
  const call = clean.slice(0, messages.length + 1);
  const [output, correctness, ...explanations] = clean.slice(messages.length).map((r) => r.text);
  const meta = new Map(o.rules.map((r) => [r.id, r]));
  const timestamp = record.timestamp ? Date.parse(record.timestamp) : NaN;
  return {
    recordId: record.id,
    runId: o.runId,
    model: record.model,
    judge: grading.judge,
    useCase: o.useCase,
    loggedAt: Number.isFinite(timestamp) ? timestamp : o.importedAt,
    latencyMs: record.latency_ms ?? null,
    metadata: (record.metadata as Record<string, unknown>) ?? {},
    messages,
    output,
    correctness: { ...grading.correctness, explanation: correctness },
    rules: grading.rules.map((r, i) => ({
      ...r,
      explanation: explanations[i],
      severity: meta.get(r.ruleId)?.severity ?? 'warning',
      category: meta.get(r.ruleId)?.category ?? 'Custom',
    })),
    redactions: call.reduce((n, r) => n + redactionCount(r), 0),
    gradedAt: Date.now(),
  };
}

/** A record that took longer than its CPU budget is counted as failed, with the reason; anything else fails the chunk. */
const tooCostly = (err: unknown): err is ApplicationFailure =>
  err instanceof ApplicationFailure && err.type === FAILURE_TYPES.tooCostly;

export async function gradeImportChunk(
  deps: Deps,
  input: { tenant: string; runId: string; path: string; chunk: ImportChunk; useCase?: string; importedAt: number },
): Promise<ChunkOutcome> {
  const lines = await readChunk(input.path, input.chunk);
  const outcome: ChunkOutcome = {
    lines: lines.length,
    graded: 0,
    alreadyGraded: 0,
    duplicates: 0,
    invalid: 0,
    failed: 0,
    problems: [],
  };
  const problem = (line: number, kind: ImportProblem['kind'], error: string) => {
    if (outcome.problems.length < MAX_PROBLEMS) outcome.problems.push({ line, kind, error });
  };
  const records: { record: LoggedCall; line: number }[] = [];
  const seen = new Set<string>();
  for (const read of lines) {
    const { line } = read;
    if ('tooLong' in read) {
      outcome.invalid += 1;
      problem(line, 'invalid', LINE_TOO_LONG);
      continue;
    }
    if (read.text.trim() === '') continue;
    const parsed = parseLoggedCall(read.text);
    if ('error' in parsed) {
      outcome.invalid += 1;
      problem(line, 'invalid', parsed.error);
    } else if (seen.has(parsed.record.id)) {
      outcome.duplicates += 1;
      problem(line, 'duplicate', `the id ${JSON.stringify(parsed.record.id.slice(0, 100))} repeats an earlier line`);
    } else {
      seen.add(parsed.record.id);
      records.push({ record: parsed.record, line });
    }
  }
  const already = await gradedRecordIds(deps, { tenant: input.tenant, ids: records.map((r) => r.record.id) });
  const useCaseOf = (record: LoggedCall) => {
    try {
      return deps.useCases.get(record.use_case ?? input.useCase ?? 'default', input.tenant);
    } catch {
      return undefined;
    }
  };
  const similarities = await chunkTopicSimilarities(deps, {
    tenant: input.tenant,
    records: records.filter(({ record }) => !already.has(record.id)).map(({ record }) => record),
    useCaseOf,
  });
  const results: EvalResult[] = [];
  for (const [n, { record, line }] of records.entries()) {
    if (already.has(record.id)) {
      outcome.alreadyGraded += 1;
      continue;
    }
    const useCaseName = record.use_case ?? input.useCase ?? 'default';
    const useCase = useCaseOf(record);
    if (!useCase) {
      outcome.failed += 1;
      problem(line, 'failed', `use_case ${JSON.stringify(useCaseName)} names no valid use case`);
      continue;
    }
    try {
      const grading = await evaluate(deps, {
        messages: record.messages,
        output: record.output,
        rules: useCase.rules,
        tenant: input.tenant,
        interactive: false,
        topicSimilarity: similarities.get(record.id),
      });
      results.push(
        await storedResult(deps, {
          record,
          runId: input.runId,
          useCase: useCaseName,
          importedAt: input.importedAt,
          grading,
          rules: useCase.rules,
        }),
      );
    } catch (err) {
      if (!tooCostly(err)) throw err;
      outcome.failed += 1;
      problem(line, 'failed', err.message);
      continue;
    }
    deps.progress?.({ phase: 'grading', chunk: input.chunk.index, record: n + 1, of: records.length });
  }
  const stored = await insertResults(deps, { tenant: input.tenant, results });
  outcome.graded = stored.stored;
  outcome.duplicates += stored.duplicates;
  return outcome;
}

/**
 * The on-topic similarity of each record whose use case has an on-topic rule (and no model judge
 * grades it), measured for the whole chunk in groups (topic.ts); null where there is nothing to
 * measure (no on-topic rule) or it is unavailable, so grading does not look again. Whether a use
 * case asks is read once per use case, not once per record.
 */
async function chunkTopicSimilarities(
  deps: Pick<Deps, 'embedder' | 'chat' | 'signal'>,
  input: { tenant: string; records: LoggedCall[]; useCaseOf: (r: LoggedCall) => { rules: Rule[] } | undefined },
): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  if (!deps.embedder || deps.chat.complete) return out;
  const asks = new Map<Rule[], boolean>();
  const asking = input.records.filter((r) => {
    const rules = input.useCaseOf(r)?.rules;
    if (!rules) return false;
    if (!asks.has(rules)) asks.set(rules, asksOnTopic(rules));
    if (!asks.get(rules)) out.set(r.id, null);
    return asks.get(rules);
  });
  const similarities = await topicSimilarities(
    { embedder: deps.embedder, signal: deps.signal },
    { pairs: asking, tenant: input.tenant, interactive: false },
  );
  asking.forEach((r, i) => out.set(r.id, similarities[i] ?? null));
  return out;
}

/** Deletes, for every tenant and use case, the results older than the use case's retention. */
export async function purgeExpiredResults(
  deps: Pick<Deps, 'weaviate' | 'useCases' | 'progress'>,
  input: { now: number },
): Promise<{ tenants: number; deleted: number }> {
  let deleted = 0;
  const tenants = await evalTenants(deps);
  for (const tenant of tenants) {
    for (const name of await resultUseCases(deps, { tenant })) {
      let days = DEFAULT_RETENTION_DAYS;
      try {
        days = deps.useCases.get(name, tenant)?.logging.retention_days ?? DEFAULT_RETENTION_DAYS;
      } catch {
        // An invalid use-case file keeps the default retention rather than keeping results forever.
      }
      deleted += await deleteResultsBefore(deps, { tenant, useCase: name, before: input.now - days * 86_400_000 });
      deps.progress?.({ tenant, useCase: name, deleted });
    }
  }
  return { tenants: tenants.length, deleted };
}
