import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { sourcesLanguage } from '../../domain/ask/answer';
import { messageLanguage } from '../../domain/sentiment/analyze';
import {
  decideLanguage,
  languageEvidence,
  requestLanguage,
  statedLanguage,
  textLanguage,
} from '../../domain/text/language';
import { detectLanguages } from '../../domain/evaluation/language';
import type { Source } from '../../domain/weaviate/ask-retrieve';

describe('request language (domain/text/language.ts)', () => {
  it('tells nothing from a few words that show no language (tinyld alone calls them Italian)', () => {
    const text = 'flux capacitor broken quantum widget';
    assert.equal(languageEvidence(text)?.lang, 'it', 'tinyld on its own');
    assert.equal(textLanguage(text), undefined);
    assert.equal(requestLanguage({ header: undefined, text }), 'en');
    assert.equal(requestLanguage({ header: undefined, text, fallback: 'de' }), 'de');
  });

  it("keeps English where tinyld is sure of another language from one word it knows ('top-up' is Tagalog to it)", () => {
    const text = 'Is there a limit when using auto top-up?';
    assert.equal(languageEvidence(text)?.lang, 'tl');
    assert.equal(textLanguage(text), 'en');
  });

  it('tells short questions that show their language', () => {
    assert.equal(textLanguage('How do I reset my password on the new portal?'), 'en');
    assert.equal(textLanguage('wie kann ich mein passwort ändern'), 'de');
    assert.equal(textLanguage('Bonjour, comment puis-je réinitialiser mon mot de passe ?'), 'fr');
    assert.equal(textLanguage('Mi ordine non è arrivato'), 'it');
    assert.equal(textLanguage('Mijn bestelling is niet aangekomen'), 'nl');
    assert.equal(textLanguage('¿Cómo cambio mi contraseña?'), 'es');
  });

  it('trusts tinyld in other scripts, where the script tells', () => {
    assert.equal(textLanguage('Где мой заказ?'), 'ru');
  });

  it('needs the score only when the function words do not decide', () => {
    const tie = { lang: 'fr', score: 0.5, latin: true, own: 0, english: 0 };
    assert.equal(decideLanguage(tie, 0.5), 'fr');
    assert.equal(decideLanguage(tie, 0.6), undefined);
    assert.equal(decideLanguage({ ...tie, own: 2, english: 1 }, 1), 'fr');
    assert.equal(decideLanguage({ ...tie, own: 1, english: 2 }, 0), 'en');
    assert.equal(decideLanguage({ ...tie, latin: false, score: 0 }, 1), 'fr');
    assert.equal(decideLanguage(undefined), undefined);
  });

  it('takes the header first, without its region, and the default when neither tells', () => {
    assert.equal(statedLanguage({ header: 'de-AT', text: 'How do I reset my password?' }), 'de');
    assert.equal(statedLanguage({ header: undefined, text: '12345' }), undefined);
    assert.equal(messageLanguage(undefined, 'flux capacitor broken quantum widget'), 'en');
    assert.equal(messageLanguage('PT', 'flux capacitor broken quantum widget'), 'pt');
  });

  it("answers a question that shows no language in its sources' language (the tenant's), else English", () => {
    const source = (language?: string) =>
      ({
        kind: 'article',
        id: 'a',
        title: 't',
        url: 'https://x.example',
        similarity: 1,
        titleSimilarity: 1,
        retrievalRank: 0,
        boost: 0,
        passages: [],
        language,
      }) as Source;
    assert.equal(sourcesLanguage([source(undefined), source('de'), source('fr')]), 'de');
    assert.equal(sourcesLanguage([source(undefined)]), 'en');
    assert.equal(sourcesLanguage([]), 'en');
  });

  it("lets the judge's language rule say it cannot tell, or English, where tinyld alone would name another language", () => {
    assert.deepEqual(detectLanguages('flux capacitor broken quantum widget'), []);
    assert.deepEqual(detectLanguages('Is there a limit when using auto top-up?'), ['en']);
    assert.deepEqual(detectLanguages('Hola, gracias por escribirnos. Su pedido llegará mañana por la tarde.')[0], 'es');
  });
});
