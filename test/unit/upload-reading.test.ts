/**
 * A large upload read on a CPU thread (domain/contracts/upload-reading.ts) answers as the event
 * loop's reading does (api/middlewares/body.ts, validate.ts, api/routes/upload-route.ts): the same
 * statuses and words for bodies that are not JSON objects, and the same valid items, as the JSON
 * the workflow receives.
 */
import assert from 'node:assert/strict';
import { casesUpload } from '../../domain/contracts/case';
import { readUpload } from '../../domain/contracts/upload-reading';
import { supportCase } from '../helpers/factories';

const read = (body: string | Uint8Array, maxItemBytes = 1536 * 1024) =>
  readUpload({ bytes: typeof body === 'string' ? Buffer.from(body) : body, kind: 'casesUpload', maxItemBytes });

describe('reading a large upload on a CPU thread (domain/contracts/upload-reading.ts)', () => {
  it('answers a body that is not a JSON object of items with the words of the event loop', () => {
    const cases: [string | Uint8Array, number, RegExp][] = [
      [new Uint8Array([0x7b, 0xff, 0x7d]), 400, /^request body is not valid UTF-8$/],
      ['{"data": [', 400, /^request body is not valid JSON$/],
      ['"text"', 400, /^request body must be a JSON object$/],
      ['[]', 400, /^request body must be a JSON object$/],
      ['{"__proto__": {}}', 400, /__proto__/],
      ['{"data": [{"id": "\\ud800"}]}', 400, /^\/data\/0\/id is not valid Unicode text/],
      ['{"data": []}', 400, /^\/data /],
      [JSON.stringify({ data: Array.from({ length: 1001 }, () => ({})) }), 413, /^\/data /],
    ];
    for (const [body, status, message] of cases) {
      const reading = read(body);
      assert.ok('error' in reading, String(body).slice(0, 40));
      assert.equal(reading.error.status, status, String(body).slice(0, 40));
      assert.match(reading.error.message, message);
    }
  });

  it('gives the valid items as the JSON of their cleaned values, and each failure with its id', () => {
    const good = supportCase({ id: 'good', unknownField: 'dropped' });
    const bad = supportCase({ id: 'bad', url: 'not a url' });
    const big = supportCase({ id: 'big', description: 'x'.repeat(3000) });
    const reading = read(JSON.stringify({ data: [good, bad, big, supportCase({ id: 'good' })] }), 2500);
    assert.ok(!('error' in reading));
    assert.deepEqual(reading.ids, ['good', 'good']);
    assert.deepEqual(
      reading.failed.map((f) => f.id),
      ['bad'],
    );
    assert.match(reading.tooBig[0].error, /^\/data\/2 is \d+ bytes as JSON; one item may have at most 2500$/);
    const first = JSON.parse(Buffer.from(reading.json.subarray(0, reading.ends[0])).toString());
    const cleaned = structuredClone(good);
    assert.ok(casesUpload.item(cleaned));
    assert.deepEqual(first, cleaned);
    assert.equal('unknownField' in first, false);
    assert.equal(reading.ends.at(-1), reading.json.length);
  });
});
