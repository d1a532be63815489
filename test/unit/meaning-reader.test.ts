/**
 * The rule reader by meaning (domain/evaluation/meaning): one family read the same way in six
 * languages and in different sentence frames, counts read with one grammar (comparisons, number
 * words, negations that turn a comparison around), and readings it is unsure of left unread.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { Check } from '../../domain/evaluation/checks';
import { describeCheck, explainRule, notUnderstoodHint } from '../../domain/evaluation/meaning/explain';
import { MAX_TOKENS, readByMeaning } from '../../domain/evaluation/meaning/reader';
import { readRule } from '../../domain/evaluation/rule-parser';
import { RuleText } from '../../domain/evaluation/rule-text';

const read = (description: string) => readRule(description);
const meaning = (description: string) => {
  const rt = new RuleText(description);
  return readByMeaning({ masked: rt.written, quotes: rt.quotes });
};
const checkOf = (description: string): Check | undefined => {
  const r = read(description);
  return r.unread.length ? undefined : r.check;
};

describe('rules read by meaning', () => {
  it('reads one limit the same way in six languages', () => {
    const fewerThanSix: Check = { kind: 'sentences', count: { relation: 'less_than', n: 6 } };
    for (const rule of [
      'Keep the answer to fewer than six sentences.',
      'Tu respuesta no puede tener seis oraciones o más: menos de 6.',
      'Schreibe weniger als sechs Sätze.',
      'Ta réponse doit compter moins de six phrases.',
      'Escreva menos de seis frases na resposta.',
      'La risposta deve avere meno di sei frasi.',
    ])
      assert.deepEqual(checkOf(rule), fewerThanSix, rule);
  });

  it('reads number words, composed ones too', () => {
    const words = (n: number): Check => ({ kind: 'words', count: { relation: 'at_least', n } });
    assert.deepEqual(checkOf('El texto debe tener como mínimo cuatrocientas palabras.'), words(400));
    assert.deepEqual(checkOf('Die Antwort muss mindestens zweihundertfünfzig Wörter umfassen.'), words(250));
    assert.deepEqual(checkOf('La risposta deve contenere almeno duecentocinquanta parole.'), words(250));
    assert.deepEqual(checkOf('La réponse doit faire au moins quatre-vingt-dix mots.'), words(90));
    assert.deepEqual(checkOf('A resposta precisa de pelo menos vinte e cinco palavras.'), words(25));
    assert.deepEqual(checkOf('Das Wort „Rechnung“ muss mindestens dreimal vorkommen.'), {
      kind: 'keyword_frequency',
      word: 'Rechnung',
      count: { relation: 'at_least', n: 3 },
    });
  });

  it('turns a comparison around after a negation, unless the comparison holds it', () => {
    assert.deepEqual(checkOf('No escribas 300 palabras o más.'), {
      kind: 'words',
      count: { relation: 'less_than', n: 300 },
    });
    assert.deepEqual(checkOf('Die Antwort darf nicht mehr als 100 Wörter haben.'), {
      kind: 'words',
      count: { relation: 'at_most', n: 100 },
    });
    assert.deepEqual(checkOf('La réponse ne doit pas faire plus de 100 mots.'), {
      kind: 'words',
      count: { relation: 'at_most', n: 100 },
    });
  });

  it('reads an article as one only when a comparison or a count goes with it', () => {
    assert.deepEqual(checkOf('Usa al menos una palabra escrita toda en mayúsculas.'), {
      kind: 'capital_words',
      count: { relation: 'at_least', n: 1 },
    });
    assert.deepEqual(checkOf('Écris en anglais et en minuscules, pas une seule majuscule.'), {
      kind: 'all',
      checks: [{ kind: 'lowercase' }, { kind: 'language', code: 'en' }],
    });
    assert.deepEqual(checkOf('Il carattere «#» può comparire una volta al massimo.'), {
      kind: 'letter_frequency',
      letter: '#',
      count: { relation: 'at_most', n: 1 },
    });
  });

  it('reads quoted literals in any quote marks, and an idiom with a negation word as no negation', () => {
    assert.deepEqual(checkOf('Incluye sin falta las palabras «factura» y «reembolso».'), {
      kind: 'keywords',
      words: ['factura', 'reembolso'],
    });
    assert.deepEqual(checkOf('Verwende weder „billig“ noch „gratis“.'), {
      kind: 'forbidden_words',
      words: ['billig', 'gratis'],
    });
    assert.deepEqual(checkOf('Termine la réponse par « Bonne journée ! », sans rien après.'), {
      kind: 'ends_with',
      phrase: 'Bonne journée !',
    });
  });

  it('names the language asked for in the rule’s own language', () => {
    assert.deepEqual(checkOf('Responde únicamente en alemán.'), { kind: 'language', code: 'de' });
    assert.deepEqual(checkOf('Die gesamte Antwort muss auf Französisch sein.'), { kind: 'language', code: 'fr' });
  });

  it('leaves a rule unread when it is unsure', () => {
    // Two counts that disagree.
    assert.equal(checkOf('Escribe al menos 5 frases y como máximo 3 frases.'), undefined);
    // A second requirement the reading would drop.
    assert.equal(checkOf('Escribe en minúsculas y usa al menos 50 palabras.'), undefined);
    assert.match(meaning('Escribe en minúsculas y usa al menos 50 palabras.').reason ?? '', /also names/);
    // No family at all.
    assert.equal(checkOf('Sé amable con el cliente.'), undefined);
    // Longer than a rule is.
    const long = `Escribe al menos 5 frases. ${'palabra '.repeat(MAX_TOKENS)}`;
    assert.match(meaning(long).reason ?? '', /longer than/);
  });

  it('keeps English rules with the family readers, and reads by meaning what they cannot', () => {
    assert.deepEqual(checkOf('Answer with at least 300 words.'), {
      kind: 'words',
      count: { relation: 'at_least', n: 300 },
    });
    assert.equal(meaning('Answer with at least 300 words.').lang, 'en');
    assert.equal(meaning('Die Antwort darf höchstens 5 Sätze haben.').lang, 'de');
  });
});

describe('what the judge understood of a rule', () => {
  it('says a reading as a canonical sentence', () => {
    assert.deepEqual(explainRule('Die Antwort darf höchstens 5 Sätze haben.'), {
      understood: true,
      reading: 'The response has at most 5 sentences.',
    });
    assert.equal(
      describeCheck({ kind: 'all', checks: [{ kind: 'lowercase' }, { kind: 'language', code: 'en' }] }),
      'The response is in lowercase letters only. The response is in English.',
    );
  });

  it('says why a rule was not understood, the closest family and a wording it reads', () => {
    const e = explainRule('Use fewer commas.');
    assert.equal(e.understood, false);
    assert.deepEqual(!e.understood && e.closest, { family: 'no commas', example: 'Do not use any commas.' });
    assert.equal(explainRule('Die Antwort darf höchstens 5 Sätze haben.').understood, true);
    assert.match(
      notUnderstoodHint(read('Usa menos comas.').meaning) ?? '',
      /^closest rule the judge reads: no commas, e\.g\. "/,
    );
    assert.equal(notUnderstoodHint(read('Sé amable con el cliente.').meaning), undefined);
  });
});
