import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { runScript } from '../helpers/run-script';
import { api, freshTenant, getHarness } from '../helpers/harness';

const keys = (...args: string[]) => runScript('scripts/keys.ts', ...args);

describe('npm run keys (operator command)', function () {
  this.timeout(120_000);

  it('creates a key shown once, lists it without the secret, and revokes it', async () => {
    await getHarness();
    const tenant = freshTenant('ops');
    const created = keys('create', '--tenant', tenant, '--scopes', 'search,cases:write', '--json');
    assert.equal(created.code, 0, created.stderr);
    const { key, keyId, scopes } = JSON.parse(created.stdout);
    assert.deepEqual(scopes, ['search', 'cases:write']);
    assert.equal((await api('POST', '/v1/search/cases', { key, body: { query: 'x' } })).status, 200);
    assert.equal((await api('POST', '/v1/articles', { key, body: { articles: [] } })).status, 403);

    const listed = keys('list', '--tenant', tenant);
    assert.match(listed.stdout, new RegExp(`${keyId}\\s+${tenant}\\s+search,cases:write\\s+active`));
    assert.doesNotMatch(listed.stdout, new RegExp(key));

    assert.equal(keys('revoke', keyId).code, 0);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await api('POST', '/v1/search/cases', { key, body: { query: 'x' } })).status, 401);
    assert.match(keys('list', '--tenant', tenant).stdout, /revoked/);
  });

  it('refuses unknown scopes and bad tenant names with a clear message', () => {
    const scope = keys('create', '--tenant', 'acme', '--scopes', 'search,fly');
    assert.notEqual(scope.code, 0);
    assert.match(scope.stderr, /unknown scope\(s\) fly/);
    const tenant = keys('create', '--tenant', 'no spaces please', '--scopes', 'search');
    assert.notEqual(tenant.code, 0);
    assert.match(tenant.stderr, /tenant must match/);
    assert.notEqual(keys('revoke', 'nosuchkey').code, 0);
  });
});
