import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { plainBanner } from '../../scripts/stack/fuzz';

describe('fuzz output', () => {
  it('passes schemathesis banners on as plain lines, so none reads as a pytest run of no test', () => {
    const closing = '============================= 1 warning in 101.16s =============================';
    assert.equal(plainBanner(closing), '[schemathesis] 1 warning in 101.16s');
    assert.equal(plainBanner('=================== SUMMARY ==================='), '[schemathesis] SUMMARY');
    assert.equal(plainBanner('  Test cases:'), '  Test cases:');
    assert.equal(plainBanner('a = b = c'), 'a = b = c');
  });
});
