/**
 * `npm run eval:import -- <file.jsonl> --tenant <t> [--use-case <u>] [--detach]`: grades a file
 * of logged calls (the spec's logged-call record, one per line) as a batch workflow
 * (workflows/eval-batch.ts). The file is checked here first, line by line: bad lines are
 * reported with their numbers and skipped, never fatal. The worker reads the file by its path, so
 * it must run where the file is (as with `npm start`). A progress bar follows the batch until it
 * ends; `--detach` returns at once with the workflow id and its Web UI link. Importing the same
 * file again attaches to its batch; records already graded are never graded again.
 */
import { Client, Connection } from '@temporalio/client';
import cliProgress from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import { loadServicesConfig } from '../domain/config';
import { readJsonlLines } from '../domain/evaluation/jsonl-lines';
import { UseCaseStore, useCasesFolder } from '../domain/evaluation/use-cases';
import { terminalText } from '../domain/text/terminal-text';
import { TENANT_PATTERN } from '../domain/weaviate/collections';
import { evalBatchProgress, startEvalBatch } from './eval-batches';
import { LINE_TOO_LONG, MAX_LINE_BYTES, parseLoggedCall } from '../domain/contracts/logged-call';
import type { EvalBatchTotals } from '../workflows/eval-batch';

const SHOWN_PROBLEMS = 20;

function parseTenant(value: string): string {
  if (!TENANT_PATTERN.test(value)) throw new InvalidArgumentError('tenant must match [A-Za-z0-9_-]{1,64}');
  return value;
}

/** Checks every line, streamed (a line too long to grade is skipped unread); prints the first bad ones with their numbers. */
async function checkFile(file: string): Promise<{ valid: number; bad: number }> {
  let valid = 0;
  let bad = 0;
  for await (const read of readJsonlLines({ path: file, maxBytes: MAX_LINE_BYTES })) {
    if ('text' in read && read.text.trim() === '') continue;
    const parsed = 'text' in read ? parseLoggedCall(read.text) : { error: LINE_TOO_LONG };
    if ('record' in parsed) valid += 1;
    else if (++bad <= SHOWN_PROBLEMS) console.error(`line ${read.line}: ${terminalText(parsed.error)} (skipped)`);
  }
  if (bad > SHOWN_PROBLEMS) console.error(`… ${bad - SHOWN_PROBLEMS} more bad lines (skipped)`);
  return { valid, bad };
}

function describe(t: EvalBatchTotals): string {
  return [
    `${t.graded} graded, ${t.alreadyGraded} already graded before, ${t.invalid} bad lines, ${t.failed} not gradable, ${t.duplicates} repeated ids (${t.lines} lines)`,
    // Bad lines were listed before the start.
    ...t.problems
      .filter((p) => p.kind !== 'invalid')
      .slice(0, SHOWN_PROBLEMS)
      .map((p) => `line ${p.line}: ${terminalText(p.error)}`),
  ].join('\n');
}

const program = new Command('eval:import')
  .description('Grade a JSONL file of logged model calls as a batch evaluation')
  .argument('<file>', 'JSONL file, one logged-call record per line')
  .requiredOption('--tenant <tenant>', 'the tenant the results belong to', parseTenant)
  .option('--use-case <name>', 'use case for records without use_case (default: default)')
  .option('--detach', 'return once the batch is started; print its workflow id and Web UI link')
  .action(async (file: string, o: { tenant: string; useCase?: string; detach?: boolean }) => {
    const full = path.resolve(file);
    if (!fs.existsSync(full) || !fs.statSync(full).isFile()) throw new Error(`${file}: no such file`);
    const useCases = new UseCaseStore(useCasesFolder(process.env.USE_CASES_DIR));
    if (o.useCase && !useCases.get(o.useCase, o.tenant)) throw new Error(`--use-case ${o.useCase} names no use case`);
    const { valid, bad } = await checkFile(full);
    console.log(`${valid} records to grade${bad ? `, ${bad} bad lines skipped` : ''}`);
    if (valid === 0) throw new Error('nothing to grade');
    const config = loadServicesConfig(process.env);
    const connection = await Connection.connect({ address: config.temporal.address, connectTimeout: 5000 }).catch(
      (err) => {
        throw new Error(
          `cannot reach Temporal at ${config.temporal.address}: ${err.message}. Is the stack running (npm start)? Otherwise set TEMPORAL_ADDRESS.`,
        );
      },
    );
    try {
      const client = new Client({ connection, namespace: config.temporal.namespace });
      const { workflowId } = await startEvalBatch({
        client,
        taskQueue: config.temporal.taskQueue,
        tenant: o.tenant,
        path: full,
        useCase: o.useCase,
      });
      const ui = `${process.env.TEMPORAL_UI_URL ?? 'http://127.0.0.1:8233'}/namespaces/${config.temporal.namespace}/workflows/${encodeURIComponent(workflowId)}`;
      console.log(`batch ${workflowId}\n${ui}`);
      if (o.detach) return;
      const bar = new cliProgress.SingleBar(
        { format: 'grading [{bar}] {value}/{total} lines | {graded} graded | eta {eta_formatted}', hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      let started = false;
      for (;;) {
        const { done, totals } = await evalBatchProgress({ client, workflowId });
        if (totals && !started) {
          bar.start(totals.lines, 0, { graded: 0 });
          started = true;
        }
        if (totals) bar.update(done ? totals.lines : totals.linesDone, { graded: totals.graded });
        if (done) {
          bar.stop();
          console.log(describe(totals!));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    } finally {
      await connection.close();
    }
  });

program.parseAsync().catch((err) => {
  console.error(`eval:import: ${terminalText(String(err.message))}`);
  process.exitCode = 1;
});
