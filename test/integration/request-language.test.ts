/**
 * The request language of a short text (domain/text/language.ts): a few words that show no
 * language get the default (for ask, the language of the tenant's sources, else English), never
 * the language tinyld guesses from them. Against the real stack: ask retrieves from Weaviate.
 */
import { strict as assert } from 'node:assert';
import { before, describe, it } from 'mocha';
import { phrases } from '../../domain/ask/i18n';
import { article } from '../helpers/factories';
import { api, createKey } from '../helpers/harness';

/** tinyld alone calls these four English words Italian. */
const NO_LANGUAGE = 'flux capacitor broken quantum widget';

async function upload(key: string, articles: unknown[]) {
  const res = await api('POST', '/v1/articles', { key, body: { articles } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

describe('request language of short texts', () => {
  let english: string;
  let german: string;

  before(async () => {
    ({ key: english } = await createKey());
    ({ key: german } = await createKey());
    await upload(english, [article({ language: 'en' })]);
    await upload(german, [
      article({
        title: 'VPN-Client: Token erneuern',
        body: 'Der VPN-Client meldet „Token abgelaufen“? Öffnen Sie den VPN-Client, wählen Sie Einstellungen und klicken Sie auf Token erneuern. Das neue Token gilt 90 Tage.',
        language: 'de',
      }),
    ]);
  });

  it('ask: answers a question that shows no language in English, not in the language tinyld guesses', async () => {
    const res = await api('POST', '/v1/assistant/ask', { key: english, body: { query: NO_LANGUAGE } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.linksTitle, phrases('en').linksTitle);
    if (res.body.responseType === 'no-answer') assert.equal(res.body.plaintext, phrases('en').noAnswer);
  });

  it("ask: takes the tenant's language from its sources when the question shows none, and the question's when it does", async () => {
    const unclear = await api('POST', '/v1/assistant/ask', { key: german, body: { query: 'vpn client token' } });
    assert.equal(unclear.status, 200, JSON.stringify(unclear.body));
    assert.equal(unclear.body.responseType, 'ai-answer-with-kb-links', JSON.stringify(unclear.body));
    assert.equal(unclear.body.linksTitle, phrases('de').linksTitle);
    assert.match(unclear.body.plaintext, /^Das steht in/);

    const asked = await api('POST', '/v1/assistant/ask', {
      key: german,
      body: { query: 'How do I renew the token of the VPN client?' },
    });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.equal(asked.body.linksTitle, phrases('en').linksTitle);
  });

  it('summary: labels a text that shows no language in English', async () => {
    const res = await api('POST', '/v1/summary', { key: english, body: { subject: NO_LANGUAGE } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.summary, /^\*\*Issue:\*\*/);
  });

  it('the header still decides', async () => {
    const res = await api('POST', '/v1/summary', {
      key: english,
      body: { subject: NO_LANGUAGE },
      headers: { 'X-Language-Iso-Code': 'it' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.summary, /^\*\*Problema:\*\*/);
  });
});
