/**
 * `npm run keys -- <command>`: the operator's tool for API keys and business ids. It talks to the
 * Weaviate of a running stack (WEAVIATE_HOST / WEAVIATE_HTTP_PORT / WEAVIATE_GRPC_PORT), with
 * WEAVIATE_API_KEY or else the key `npm start` keeps in DATA_DIR.
 */
import { Command, InvalidArgumentError } from 'commander';
import { terminalJson, terminalText as t } from '../domain/text/terminal-text';
import { ApiKeyStore } from '../domain/weaviate/api-keys';
import { SCOPES, isScope } from '../api/scopes';
import { withWeaviate } from './operator-weaviate';

function parseScopes(value: string): string[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = scopes.filter((s) => s !== 'all' && !isScope(s));
  if (bad.length)
    throw new InvalidArgumentError(`unknown scope(s) ${bad.join(', ')}; known: ${SCOPES.join(', ')}, or all`);
  return scopes.includes('all') ? [...SCOPES] : scopes;
}

const withStore = <T>(fn: (store: ApiKeyStore) => Promise<T>) =>
  withWeaviate((weaviate) => fn(new ApiKeyStore(weaviate)));

const program = new Command('keys').description('Manage API keys and business ids of the Support-AI API');

program
  .command('create')
  .description('create an API key; the key is printed once and stored only as a hash')
  .requiredOption('--tenant <tenant>', 'the customer the key belongs to ([A-Za-z0-9_-], at most 64)')
  .requiredOption('--scopes <list>', `comma-separated scopes: ${SCOPES.join(', ')}, or all`, parseScopes)
  .option('--name <name>', 'a label shown by list', '')
  .option('--json', 'print JSON')
  .action((o) =>
    withStore(async (store) => {
      const { key, record } = await store.create({ tenant: o.tenant, scopes: o.scopes, name: o.name });
      console.log(
        o.json
          ? terminalJson({ key, ...record })
          : `key ${t(record.keyId)} for tenant ${t(record.tenant)} (${t(record.scopes.join(','))}):\n${key}`,
      );
    }),
  );

program
  .command('list')
  .description('list keys (never the keys themselves)')
  .option('--tenant <tenant>', 'only this tenant')
  .action((o) =>
    withStore(async (store) => {
      for (const k of await store.list(o.tenant)) {
        const state = k.revokedAt ? `revoked ${new Date(k.revokedAt).toISOString()}` : 'active';
        console.log(
          `${t(k.keyId)}  ${t(k.tenant)}  ${t(k.scopes.join(','))}  ${state}  ${new Date(k.createdAt).toISOString()}  ${t(k.name)}`,
        );
      }
    }),
  );

program
  .command('revoke <keyId>')
  .description('revoke a key; API instances stop accepting it within 10 seconds')
  .action((keyId: string) =>
    withStore(async (store) => {
      if (!(await store.revoke(keyId))) {
        console.error(`no key with id ${t(keyId)}`);
        process.exitCode = 1;
      } else console.log(`revoked ${t(keyId)}`);
    }),
  );

program
  .command('business')
  .description('allow a business id (X-Business-Id) for a tenant; a tenant name is always allowed')
  .requiredOption('--tenant <tenant>', 'the tenant')
  .requiredOption('--id <businessId>', 'the business id')
  .action((o) =>
    withStore(async (store) => {
      await store.addBusiness({ businessId: o.id, tenant: o.tenant });
      console.log(`business ${t(o.id)} → tenant ${t(o.tenant)}`);
    }),
  );

program.parseAsync().catch((err) => {
  console.error(`keys: ${t(String(err.message))}`);
  process.exit(1);
});
