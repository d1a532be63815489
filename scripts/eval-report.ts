/**
 * `npm run eval:report -- --tenant <t> [--use-case <u>] [--from <date>] [--to <date>]
 * [--where key=value ...] [--html <file>]`: compares the models of a tenant's graded calls (batch
 * evaluation), as markdown on the terminal and as a standalone HTML page with charts
 * (domain/evaluation/report.ts). It reads the Weaviate of a running stack, like `keys`, a page of
 * results at a time.
 */
import { Command, InvalidArgumentError } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import { ReportBuilder } from '../domain/evaluation/report';
import { renderHtml } from '../domain/evaluation/report-html';
import { renderMarkdown } from '../domain/evaluation/report-markdown';
import { terminalText } from '../domain/text/terminal-text';
import { TENANT_PATTERN } from '../domain/weaviate/collections';
import { streamReportRows } from '../domain/weaviate/eval-results';
import { withWeaviate } from './operator-weaviate';

function parseTenant(value: string): string {
  if (!TENANT_PATTERN.test(value)) throw new InvalidArgumentError('tenant must match [A-Za-z0-9_-]{1,64}');
  return value;
}

function parseDate(value: string): number {
  const t = Date.parse(value);
  if (!Number.isFinite(t)) throw new InvalidArgumentError('expected a date such as 2024-05-01 or 2024-05-01T12:00:00Z');
  return t;
}

function parseWhere(value: string, previous: [string, string][] = []): [string, string][] {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('expected key=value, e.g. product=app');
  return [...previous, [value.slice(0, at), value.slice(at + 1)]];
}

const program = new Command('eval:report')
  .description("Compare the models of a tenant's graded calls: markdown here, an HTML page with charts in a file")
  .requiredOption('--tenant <tenant>', 'the tenant', parseTenant)
  .option('--use-case <name>', 'only calls graded under this use case')
  .option('--from <date>', 'only calls logged at or after this date', parseDate)
  .option('--to <date>', 'only calls logged before this date', parseDate)
  .option('--where <key=value>', 'only calls whose metadata has this value (repeatable)', parseWhere, [])
  .option('--html <file>', 'where to write the HTML page', '')
  .action(
    (o: { tenant: string; useCase?: string; from?: number; to?: number; where: [string, string][]; html: string }) =>
      withWeaviate(async (weaviate) => {
        const scope = { tenant: o.tenant, useCase: o.useCase, from: o.from, to: o.to, where: o.where };
        // One pass over the tenant's results, a page at a time: memory stays bounded at any size.
        const builder = new ReportBuilder(scope);
        for await (const r of streamReportRows({ weaviate }, scope)) builder.add(r);
        const report = builder.finish();
        console.log(renderMarkdown(report));
        const file = path.resolve(o.html || `eval-report-${o.tenant}.html`);
        // The UMD build, inlined into the page (the package's exports do not list it; it sits beside the main file).
        const chartJs = fs.readFileSync(
          path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.min.js'),
          'utf8',
        );
        fs.writeFileSync(file, renderHtml(report, { chartJs }));
        console.log(`HTML report: ${terminalText(file)}`);
      }),
  );

program.parseAsync().catch((err) => {
  console.error(`eval:report: ${terminalText(String(err.message))}`);
  process.exitCode = 1;
});
