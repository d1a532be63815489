/**
 * `npm run tokens -- [--tenant <t>] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]`: the chat
 * model's tokens per UTC day, tenant, capability and model, summed over every API and worker
 * process (domain/weaviate/token-usage.ts), with each tenant's total; today by default. `--json`
 * prints one JSON object per row, for billing. Reads the Weaviate of a running stack
 * (scripts/operator-weaviate.ts). The last second of the processes' calls may not be stored yet.
 */
import { Command, InvalidArgumentError } from 'commander';
import { terminalText as t } from '../domain/text/terminal-text';
import { TENANT_PATTERN } from '../domain/weaviate/collections';
import { dayName, tokenReport, utcDay, WeaviateTokenUsage } from '../domain/weaviate/token-usage';
import { withWeaviate } from './operator-weaviate';

function parseTenant(value: string): string {
  if (!TENANT_PATTERN.test(value)) throw new InvalidArgumentError('tenant must match [A-Za-z0-9_-]{1,64}');
  return value;
}

function parseDay(value: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(ms)) throw new InvalidArgumentError('expected YYYY-MM-DD');
  return utcDay(ms);
}

const program = new Command('tokens')
  .description("The chat model's tokens per day (UTC), tenant, capability and model, over every process")
  .option('--tenant <tenant>', 'only this tenant', parseTenant)
  .option('--from <day>', 'the first day, YYYY-MM-DD (default: today)', parseDay)
  .option('--to <day>', 'the last day, YYYY-MM-DD (default: --from, or today)', parseDay)
  .option('--json', 'one JSON object per row')
  .action((o: { tenant?: string; from?: number; to?: number; json?: boolean }) =>
    withWeaviate(async (weaviate) => {
      const from = o.from ?? utcDay(Date.now());
      const rows = await tokenReport(new WeaviateTokenUsage(weaviate), { from, to: o.to ?? from, tenant: o.tenant });
      if (o.json) {
        for (const r of rows) console.log(JSON.stringify({ ...r, day: dayName(r.day) }));
        return;
      }
      if (rows.length === 0) return console.log('no model calls recorded for these days');
      const table = rows.map((r) => ({
        day: dayName(r.day),
        tenant: t(r.tenant),
        capability: r.capability,
        model: t(r.model),
        calls: r.calls,
        prompt: r.promptTokens,
        completion: r.completionTokens,
        total: r.promptTokens + r.completionTokens,
      }));
      console.table(table);
      const perTenant = new Map<string, number>();
      for (const r of rows)
        perTenant.set(r.tenant, (perTenant.get(r.tenant) ?? 0) + r.promptTokens + r.completionTokens);
      for (const [tenant, total] of perTenant) console.log(`${t(tenant)}: ${total} tokens`);
    }),
  );

program.parseAsync().catch((err: Error) => {
  console.error(`tokens: ${err.message}`);
  process.exit(1);
});
