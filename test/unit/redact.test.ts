import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'mocha';
import { redact, type RedactionType } from '../../domain/evaluation/redact';

const corpus = JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'redaction-corpus.json'), 'utf8')) as {
  positive: { text: string; expect: string; types: RedactionType[] }[];
  negative: string[];
};

describe('redaction (corpus)', () => {
  for (const c of corpus.positive) {
    it(`replaces ${c.types.join(', ')}: ${JSON.stringify(c.text.slice(0, 50))}`, () => {
      const r = redact(c.text);
      assert.equal(r.text, c.expect);
      assert.deepEqual(Object.keys(r.counts).sort(), [...c.types].sort());
    });
  }
  for (const text of corpus.negative) {
    it(`leaves ordinary text alone: ${JSON.stringify(text)}`, () => {
      assert.deepEqual(redact(text), { text, counts: {} });
    });
  }
  it('redacts several findings in one text, in place', () => {
    const r = redact('Mail a@b.io or call +1 415 555 0100; card 4242424242424242.');
    assert.equal(r.text, 'Mail [EMAIL] or call [PHONE]; card [CARD_NUMBER].');
    assert.deepEqual(r.counts, { email: 1, phone: 1, card: 1 });
  });
  it('rejects look-alikes that fail their check: an IBAN with a wrong checksum, a card failing Luhn, an impossible IP', () => {
    for (const text of ['GB29NWBK60161331926818', '4111 1111 1111 1112', '999.12.1.1 is not an address'])
      assert.equal(redact(text).text, text);
  });
});
