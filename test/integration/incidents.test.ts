import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { api, createKey } from '../helpers/harness';
import { incident } from '../helpers/factories';

describe('POST /v1/incidents', () => {
  it('answers 201 with the incident id', async () => {
    const { key } = await createKey({ scopes: ['incidents:write'] });
    const record = incident();
    const res = await api('POST', '/v1/incidents', { key, body: record });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body, { result: 'success', id: record.incident.id });
  });

  it('assigns a stable id when the incident has none', async () => {
    const { key } = await createKey({ scopes: ['incidents:write'] });
    const record = incident();
    delete (record.incident as any).id;
    const first = await api('POST', '/v1/incidents', { key, body: record });
    const again = await api('POST', '/v1/incidents', { key, body: record });
    assert.equal(first.status, 201);
    assert.equal(typeof first.body.id, 'string');
    assert.equal(again.body.id, first.body.id);
  });

  it('answers 400 naming the missing field', async () => {
    const { key } = await createKey({ scopes: ['incidents:write'] });
    const { updates: _u, ...record } = incident();
    const res = await api('POST', '/v1/incidents', { key, body: record });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /updates/);
  });
});
