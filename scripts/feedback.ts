/**
 * `npm run feedback -- --tenant <t> [--negative] [--since <date>] [--limit <n>] [--json]`: a
 * tenant's answers of /v1/assistant/ask with the feedback they got, newest first — the raw
 * material for fixing a knowledge base. It reads the Weaviate of a running stack, like `keys`.
 */
import { Command, InvalidArgumentError } from 'commander';
import { terminalJson, terminalText as t } from '../domain/text/terminal-text';
import { type AnswerWithFeedback, listAnswersWithFeedback } from '../domain/weaviate/answers';
import { TENANT_PATTERN } from '../domain/weaviate/collections';
import { withWeaviate } from './operator-weaviate';

function parseDate(value: string): number {
  const t = Date.parse(value);
  if (!Number.isFinite(t)) throw new InvalidArgumentError('expected a date such as 2024-05-01 or 2024-05-01T12:00:00Z');
  return t;
}

function parseTenant(value: string): string {
  if (!TENANT_PATTERN.test(value)) throw new InvalidArgumentError('tenant must match [A-Za-z0-9_-]{1,64}');
  return value;
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new InvalidArgumentError('expected a whole number from 1 to 10000');
  return n;
}

const RATING = { 1: '+1', [-1]: '-1', 0: '  ' } as Record<number, string>;

/** A stored text on one line, at most `max` characters: runs of whitespace as one space, controls escaped. */
const oneLine = (text: string, max = Infinity) => t(text.replace(/\s+/g, ' ').slice(0, max));

/** One answer as a few readable lines; every text from the tenant's data is escaped (domain/text/terminal-text.ts). */
function describe(a: AnswerWithFeedback): string {
  const lines = [
    `${new Date(a.createdAt).toISOString()}  ${t(a.responseType)}  ${t(a.language)}  answer ${t(a.answerId)}  chat ${t(a.chatId)}`,
    `  Q: ${t(a.question)}`,
    ...(a.standalone !== a.question ? [`  searched as: ${t(a.standalone)}`] : []),
    `  A: ${oneLine(a.answer, 300)}`,
    ...a.sources.map((s) => `  source: ${t(s.kind)} ${t(s.id)} ${t(s.url)}`),
    ...a.feedback.map(
      (f) => `  feedback ${RATING[f.rating] ?? '  '} ${new Date(f.createdAt).toISOString()}: ${oneLine(f.details)}`,
    ),
  ];
  return lines.join('\n');
}

const program = new Command('feedback')
  .description("List a tenant's answers with their feedback, newest first")
  .requiredOption('--tenant <tenant>', 'the tenant', parseTenant)
  .option('--negative', 'only answers with negative feedback (-1, not helpful)')
  .option('--since <date>', 'only answers given since this date', parseDate)
  .option('--limit <n>', 'read at most this many of the newest answers', parseLimit, 1000)
  .option('--json', 'print one JSON object per answer')
  .action((o) =>
    withWeaviate(async (weaviate) => {
      const answers = await listAnswersWithFeedback(
        { weaviate },
        { tenant: o.tenant, since: o.since, negativeOnly: o.negative, limit: o.limit },
      );
      if (o.json) for (const a of answers) console.log(terminalJson(a));
      else if (answers.length === 0)
        console.log(`no answers for tenant ${o.tenant}${o.negative ? ' with negative feedback' : ''}`);
      else console.log(answers.map(describe).join('\n\n'));
    }),
  );

program.parseAsync().catch((err) => {
  console.error(`feedback: ${t(String(err.message))}`);
  process.exit(1);
});
