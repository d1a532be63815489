/**
 * Batch evaluation (workflows/eval-batch.ts) on the time-skipping test server: a file of more
 * chunks than one run grades continues as new, carrying the chunks left and the totals, until
 * every chunk was graded once; a chunk whose attempt fails is retried and counted once. The
 * planning activity is the real one (it reads the file); the chunk activity is the test's own: it
 * reads and validates its lines as the real one does, but grades and stores nothing (the real one
 * stores results in Weaviate).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { activityInfo } from '@temporalio/activity';
import type { Activities } from '../../activities';
import { activityProgress } from '../../activities/progress';
import { MAX_LINE_BYTES, parseLoggedCall } from '../../domain/contracts/logged-call';
import { planEvalImport, type ChunkOutcome } from '../../domain/evaluation/batch';
import { readJsonlLines } from '../../domain/evaluation/jsonl-lines';
import {
  EVAL_BATCH,
  evalBatchId,
  evalBatchProgressQuery,
  evalBatchWorkflow,
  type EvalBatchInput,
} from '../../workflows/eval-batch';
import { freshTenant } from '../helpers/harness';
import { historyOf, runChain, withTestWorkers } from '../helpers/time-skipping';

/** Lines of the import file: one chunk each, so 2 runs of 100 chunks and a third of 5. */
const LINES = 2 * EVAL_BATCH.chunksPerRun + 5;
/** Every fourth line is not a record: more invalid lines (52) than the totals keep problems of. */
const isInvalidLine = (line: number) => line % 4 === 0;
/** The chunk whose first attempt fails, in the second run. */
const FLAKY_CHUNK = 150;

function writeImportFile(dir: string): string {
  const lines = Array.from({ length: LINES }, (_, i) =>
    isInvalidLine(i + 1)
      ? '{"id": "broken"'
      : JSON.stringify({
          id: `call-${i + 1}`,
          messages: [{ role: 'user', content: 'Hi' }],
          output: 'Hello',
          model: 'm',
        }),
  );
  const file = path.join(dir, 'calls.jsonl');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** What the test's chunk activity was asked: each attempt's chunk index. */
interface Graded {
  attempts: { chunk: number; attempt: number }[];
  /** When set, each chunk waits for it (after being recorded and reported), so a test can look at the run meanwhile. */
  gate?: Promise<void>;
  reached?: () => void;
}

/**
 * The real planning activity, and a chunk activity that counts valid and invalid lines as the
 * real one does before it grades: valid records count as graded.
 */
function batchActivities(graded: Graded): Pick<Activities, 'planEvalImport' | 'gradeImportChunk'> {
  return {
    planEvalImport: (input) => planEvalImport({ progress: activityProgress() }, input),
    async gradeImportChunk(input) {
      const { attempt } = activityInfo();
      graded.attempts.push({ chunk: input.chunk.index, attempt });
      graded.reached?.();
      await graded.gate;
      if (input.chunk.index === FLAKY_CHUNK && attempt === 1) throw new Error('the worker lost its store mid-chunk');
      const outcome: ChunkOutcome = {
        lines: 0,
        graded: 0,
        alreadyGraded: 0,
        duplicates: 0,
        invalid: 0,
        failed: 0,
        problems: [],
      };
      const { chunk } = input;
      const read = readJsonlLines({
        path: input.path,
        start: chunk.start,
        end: chunk.end,
        firstLine: chunk.firstLine,
        maxBytes: MAX_LINE_BYTES,
      });
      for await (const line of read) {
        outcome.lines += 1;
        const parsed = 'text' in line ? parseLoggedCall(line.text) : { error: 'too long' };
        if ('record' in parsed) outcome.graded += 1;
        else {
          outcome.invalid += 1;
          outcome.problems.push({ line: line.line, kind: 'invalid', error: parsed.error });
        }
      }
      return outcome;
    },
  };
}

/** The input a run was started with (a continued run's carries the chunks left and the totals). */
function startInput(events: Awaited<ReturnType<typeof historyOf>>): EvalBatchInput {
  const data = events[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  assert.ok(data, 'the run has no input');
  return JSON.parse(Buffer.from(data).toString());
}

describe('workflows: batch evaluation (time-skipping)', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-batch-workflow-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('continues as new every 100 chunks, carrying the chunks left and the totals, and grades each chunk once', async () => {
    const graded: Graded = { attempts: [] };
    await withTestWorkers({ activities: batchActivities(graded) }, async (w) => {
      const file = writeImportFile(dir);
      const tenant = freshTenant();
      const workflowId = evalBatchId(tenant, 'r1');
      const handle = await w.client.workflow.start(evalBatchWorkflow, {
        taskQueue: w.taskQueue,
        workflowId,
        args: [{ tenant, runId: 'r1', path: file, importedAt: 1_700_000_000_000, chunkLines: 1 }],
      });
      const totals = await handle.result();

      const invalid = Array.from({ length: LINES }, (_, i) => i + 1).filter(isInvalidLine);
      assert.deepEqual(
        { ...totals, problems: totals.problems.length },
        {
          lines: LINES,
          chunks: LINES,
          chunksDone: LINES,
          linesDone: LINES,
          graded: LINES - invalid.length,
          alreadyGraded: 0,
          duplicates: 0,
          invalid: invalid.length,
          failed: 0,
          problems: EVAL_BATCH.maxProblems,
        },
      );
      for (const p of totals.problems) assert.ok(isInvalidLine(p.line), `line ${p.line} reported as a problem`);

      // Three runs: 100 chunks, 100 chunks, 5 chunks; each continued run got the rest and the totals so far.
      const runs = await runChain({ env: w.env, workflowId, firstRunId: handle.firstExecutionRunId });
      assert.equal(runs.length, 3);
      const inputs = await Promise.all(
        runs.map(async (runId) => startInput(await historyOf({ env: w.env, workflowId, runId }))),
      );
      assert.deepEqual(
        inputs.map((i) => [i.remaining?.length, i.totals?.chunksDone, i.totals?.linesDone]),
        [
          [undefined, undefined, undefined],
          [LINES - 100, 100, 100],
          [LINES - 200, 200, 200],
        ],
      );
      assert.equal(inputs[2].remaining?.[0].index, 200);

      // Every chunk graded once, the failed attempt of one of them retried once.
      const done = graded.attempts.filter((a) => !(a.chunk === FLAKY_CHUNK && a.attempt === 1)).map((a) => a.chunk);
      assert.deepEqual(
        [...done].sort((a, b) => a - b),
        Array.from({ length: LINES }, (_, i) => i),
      );
      assert.deepEqual(
        graded.attempts.filter((a) => a.chunk === FLAKY_CHUNK),
        [
          { chunk: FLAKY_CHUNK, attempt: 1 },
          { chunk: FLAKY_CHUNK, attempt: 2 },
        ],
      );
      const { memo } = await handle.describe();
      assert.equal(memo?.progress, `${LINES}/${LINES} lines`);
    });
  });

  it('answers its progress while it runs, and grades a file of one chunk in one run', async () => {
    let open: () => void = () => undefined;
    let reached: () => void = () => undefined;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    const graded: Graded = { attempts: [], gate: new Promise((resolve) => (open = resolve)), reached };
    await withTestWorkers({ activities: batchActivities(graded) }, async (w) => {
      const file = writeImportFile(dir);
      const tenant = freshTenant();
      const workflowId = evalBatchId(tenant, 'r2');
      // The default chunk size (250 lines) holds the whole file: one chunk, one run.
      const handle = await w.client.workflow.start(evalBatchWorkflow, {
        taskQueue: w.taskQueue,
        workflowId,
        args: [{ tenant, runId: 'r2', path: file, importedAt: 1_700_000_000_000 }],
      });
      // Planned, its one chunk being graded (held at the gate): the totals so far.
      await atGate;
      const planned = await handle.query(evalBatchProgressQuery);
      assert.deepEqual(
        { lines: planned?.lines, chunks: planned?.chunks, chunksDone: planned?.chunksDone },
        { lines: LINES, chunks: 1, chunksDone: 0 },
      );
      open();
      const totals = await handle.result();
      assert.equal(totals.chunksDone, 1);
      assert.equal(totals.linesDone, LINES);
      assert.deepEqual(await runChain({ env: w.env, workflowId, firstRunId: handle.firstExecutionRunId }), [
        handle.firstExecutionRunId,
      ]);
    });
  });
});
