/**
 * Every pattern run on tenant text costs time linear in the text. Each family reads about a
 * megabyte of the input that was the worst case of its former pattern (a match retried at every
 * character of a long run, a scan over everything found so far) and the answer is checked. There is
 * no timing threshold here: mocha's timeout fails a family whose cost grows with the square of its
 * input, which took from minutes to hours on a megabyte.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { contentTokens, sentences } from '../../domain/ask/sentences';
import { citedIn } from '../../domain/ask/model-engine';
import { gradeWithBuiltinJudge, type JudgeRule } from '../../domain/evaluation/builtin-judge';
import { runCheck } from '../../domain/evaluation/checks';
import { redact } from '../../domain/evaluation/redact';
import {
  findCardNumbers,
  findEmails,
  findLinks,
  findPhones,
  findSecrets,
  mask,
} from '../../domain/evaluation/sensitive-data';
import { occurIn } from '../../domain/evaluation/substrings';
import * as measure from '../../domain/evaluation/text-measures';
import { replyObject } from '../../domain/models/chat';
import { lexicalCue } from '../../domain/sentiment/lexicon';
import { cleanMessage, segments } from '../../domain/sentiment/local-engine';
import { parseConversation } from '../../domain/summary/conversation';
import { reportedSpeech, trimFillers } from '../../domain/summary/english';
import { summarizeLocal } from '../../domain/summary/local-engine';
import { keywordTags } from '../../domain/tags/keywords';
import { terms } from '../../domain/tags/words';
import { articleSections, DEFAULT_PASSAGE_OPTIONS, toPassages } from '../../domain/text/article-text';
import { escapeMarkdown, presentAnswer } from '../../api/presenters/ask';
import { LIMITS } from '../../domain/contracts/common';
import { MAX_RULES } from '../../domain/contracts/evaluation';

const MB = 1_000_000;
/** `unit` repeated to about a megabyte (whole repeats only). */
const mb = (unit: string, size = MB) => unit.repeat(Math.max(1, Math.floor(size / unit.length)));
/** Distinct items from `make`, joined by spaces, to about a megabyte. */
const distinct = (make: (i: number) => string, size = MB) => {
  const out: string[] = [];
  for (let i = 0, length = 0; length < size; i++) {
    out.push(make(i));
    length += out[out.length - 1].length + 1;
  }
  return out;
};

/** Inputs that made a pattern retry at every character of a long run. */
const RUNS = {
  letters: mb('a'),
  dotted: mb('a.'),
  url: `http://${mb('a.')}`,
  ats: mb('a@'),
  dashed: mb('a-'),
  digitDash: mb('1-'),
  digits: mb('1'),
  spacedDigits: mb('1 '),
  base64: mb('aB3+'),
  blanks: `x${mb(' ')}x`,
  newlines: `x${mb('\n')}x`,
};

const output = (text: string, rules: JudgeRule[], messages = [{ role: 'user', content: 'Help me with my order.' }]) =>
  gradeWithBuiltinJudge({ messages, output: text, rules });

describe('linear patterns: a megabyte of adversarial text per family', () => {
  describe('email addresses', () => {
    for (const [name, text] of Object.entries(RUNS)) {
      it(`finds none in ${name}`, () => assert.deepEqual(findEmails(text), []));
    }
    it('finds every address between long runs, and one that starts where the previous one ended', () => {
      const text = `write to ${RUNS.dotted} jane.doe@example.com ${RUNS.letters} a@b.com.x@y.org`;
      assert.deepEqual(findEmails(text), ['jane.doe@example.com', 'a@b.com', '.x@y.org']);
    });
  });

  describe('links', () => {
    it('finds one link in http:// followed by a megabyte of a.', () => assert.deepEqual(findLinks(RUNS.url).length, 1));
    it('finds none in runs without a top-level domain', () => {
      for (const text of [RUNS.letters, RUNS.dotted, RUNS.dashed, RUNS.ats]) assert.deepEqual(findLinks(text), []);
    });
    it('finds tens of thousands of distinct links, each once (a bare host inside a link is not counted again)', () => {
      const urls = distinct((i) => `https://h${i}.example.com/p`);
      assert.equal(findLinks(urls.join(' ')).length, urls.length);
      const bare = distinct((i) => `h${i}.example.com`);
      assert.equal(findLinks(bare.join(' ')).length, bare.length);
    });
    it('checks tens of thousands of links against a megabyte of input in one pass', () => {
      const urls = distinct((i) => `https://h${i}.example.com/p`);
      const rule = [{ id: 'grounded', description: 'Only link to URLs that appear in the conversation.' }];
      const input = [{ role: 'user', content: urls.join('\n') }];
      assert.equal(output(urls.join(' '), rule, input).rules[0].outcome, 'pass');
      const invented = output(`${urls.join(' ')} https://made-up.example.org/x`, rule, input).rules[0];
      assert.equal(invented.outcome, 'fail');
      assert.match(invented.explanation, /made-up\.example\.org/);
    });
  });

  describe('phone numbers and card numbers', () => {
    for (const name of ['digits', 'digitDash', 'spacedDigits', 'dotted'] as const) {
      it(`finds no phone and no card in ${name}`, () => {
        assert.deepEqual(findPhones(RUNS[name]), []);
        assert.deepEqual(findCardNumbers(RUNS[name]), []);
      });
    }
    it('finds each of tens of thousands of phone numbers', () => {
      const phones = distinct((i) => `+1 415 555 ${String(i % 10_000).padStart(4, '0')};`);
      assert.equal(findPhones(phones.join(' ')).length, phones.length);
    });
  });

  describe('IBANs, national ids and IP addresses', () => {
    for (const [name, text] of Object.entries({
      iban: mb('GB12 '),
      ssn: mb('123-45-'),
      ipv4: mb('1.'),
      ipv6: mb('1:'),
      ipv6Letters: mb('a:'),
      colons: mb(':'),
    })) {
      it(`redacts nothing in ${name}`, () => assert.deepEqual(redact(text), { text, counts: {} }));
    }
  });

  describe('secrets and random-looking tokens', () => {
    for (const [name, text] of Object.entries({
      ...RUNS,
      keyHeaders: mb('-----BEGIN '),
      bearer: mb('Bearer '),
      schemes: mb('a+b.c-'),
      colonSlash: mb('a:/'),
    })) {
      it(`finds no secret in ${name}`, () => assert.deepEqual(findSecrets(text), []));
    }
    it('finds a token that runs for a megabyte, once', () => {
      assert.deepEqual(findSecrets(mb('xoxb-')), [{ kind: 'Slack token', masked: `xoxb…(${MB} chars)` }]);
      assert.deepEqual(
        findSecrets(mb('eyJaaaaaaaaa.')).map((s) => s.kind),
        ['JSON web token'],
      );
    });
    it('finds the connection string after a megabyte of scheme-like characters', () => {
      const url = 'postgres://app:s3cret-pass@db.internal/prod';
      for (const run of [RUNS.dashed, RUNS.dotted, RUNS.base64]) {
        assert.deepEqual(findSecrets(`${run} ${url}`), [
          { kind: 'connection string with a password', masked: mask(url) },
        ]);
      }
    });
    it('lists tens of thousands of random-looking tokens once per masked value', () => {
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
      const chars = (n: number) =>
        Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const tokens = distinct(() => `${chars(4)}aZ9${chars(33 + Math.floor(random() * 30))}`);
      const found = findSecrets(tokens.join(' '));
      assert.equal(found.length, new Set(tokens.map(mask)).size);
      assert.ok(found.every((s) => s.kind === 'random-looking token'));
    });
  });

  describe('redaction as a whole', () => {
    for (const [name, text] of Object.entries(RUNS)) {
      it(`leaves ${name} as it is`, () => assert.deepEqual(redact(text).counts, {}));
    }
    it('replaces tens of thousands of findings, each once', () => {
      const mails = distinct((i) => `u${i}@example.com`);
      const r = redact(mails.join(' '));
      assert.deepEqual(r.counts, { email: mails.length });
      assert.equal(r.text, mails.map(() => '[EMAIL]').join(' '));
    });
    it('keeps only the password of URLs after a megabyte of scheme-like characters', () => {
      assert.equal(
        redact(`${RUNS.dotted} https://user:hunter22@example.com/x`).text,
        `${RUNS.dotted} https://user:[PASSWORD]@example.com/x`,
      );
    });
  });

  describe('the judge: checks on a megabyte of output', () => {
    const cases: [string, string, string, 'pass' | 'fail', RegExp?][] = [
      ['sentences', 'Use at most 2 sentences.', RUNS.dotted, 'pass', /^1 sentence;/],
      ['sentences (marks)', 'Use at most 2 sentences.', mb('?!.'), 'pass', /^1 sentence;/],
      ['bullets', 'Use exactly 3 bullet points.', RUNS.newlines, 'fail', /^0 bullet points/],
      [
        'placeholders',
        'Include at least 2 placeholders in square brackets like [name].',
        mb('['),
        'fail',
        /^0 placeholder/,
      ],
      ['title', 'Include a title wrapped in double angular brackets, such as <<title>>.', mb('<<'), 'fail', /no title/],
      ['postscript', 'Add a postscript starting with P.S.', RUNS.blanks, 'fail', /no postscript/],
      [
        'ending phrase',
        'End your response with the phrase Bye.',
        `x${mb('"', MB / 2)}${mb(' ', MB / 2)}x`,
        'fail',
        /not "Bye"/,
      ],
      ['quotes', 'Wrap your entire response in double quotation marks.', mb('"'), 'pass'],
      ['highlights', 'Highlight at least 2 sections with markdown, i.e. *highlighted section*.', mb('*'), 'fail'],
      ['capital words', 'Use words in all capital letters at least 2 times.', mb("DON'T "), 'pass'],
      ['no emails', 'Never include email addresses.', RUNS.letters, 'pass'],
      ['no secrets', 'Never reveal secrets such as API keys, tokens or passwords.', RUNS.base64, 'pass'],
      ['no links', 'Do not include any links.', RUNS.dotted, 'pass'],
      ['language', 'Your answer must be in English.', mb('Your order has shipped and will arrive tomorrow. '), 'pass'],
      [
        'same language',
        "The answer is written in the same language as the user's last message.",
        mb('Your order has shipped and will arrive tomorrow. '),
        'pass',
      ],
      ['keywords', 'Include the keywords refund and warranty.', mb('refund '), 'fail', /missing "warranty"/],
      ['word count', 'Answer with at least 5 words.', mb('a '), 'pass'],
    ];
    for (const [name, rule, text, outcome, explanation] of cases) {
      it(`${name}: ${outcome}`, () => {
        const r = output(text, [{ id: name, description: rule }]).rules[0];
        assert.equal(r.outcome, outcome, r.explanation);
        if (explanation) assert.match(r.explanation, explanation);
      });
    }
    it('options: finds which of thousands of options the output contains', () => {
      const options = distinct((i) => `option-${i}`, 20_000);
      const check = { kind: 'options' as const, options };
      assert.equal(
        runCheck(check, { output: `${mb('option ')} ${options[options.length - 1]}`, messages: [] }).outcome,
        'pass',
      );
      assert.equal(runCheck(check, { output: mb('option '), messages: [] }).outcome, 'fail');
    });
  });

  describe('the judge: reading rules (the most one request may send: 100 rules of 10,000 characters)', () => {
    const size = LIMITS.query;
    const descriptions: [string, string, 'pass' | 'fail' | 'not_applicable'][] = [
      ['blanks', `x${' '.repeat(size - 2)}x`, 'not_applicable'],
      ['newlines', `x${'\n'.repeat(size - 2)}x`, 'not_applicable'],
      ['a word, again and again', mb('word x ', size), 'not_applicable'],
      ['words, again and again', mb('word word ', size), 'not_applicable'],
      ['opening quotes', mb('‘', size), 'not_applicable'],
      ['a phrase, again and again', mb('end with the phrase ', size), 'fail'],
      ['blank lines before bullets', `Use bullets.${mb('\n\n-', size - 20)}`, 'fail'],
      ['section examples', `Mark each section with SECTION X.${mb('\n[', size - 40)}]x`, 'fail'],
      ['sentences that each ask something', mb('No emails. ', size), 'pass'],
      ['a rule, then blanks', `No emails.${' '.repeat(size - 11)}x`, 'pass'],
      ['a rule, then stops', `No emails ${'.'.repeat(size - 11)}a`, 'pass'],
      ['a rule, then blank lines', `No emails.${mb('\n ', size - 12)}x`, 'pass'],
      ['framings, again and again', mb('Important: this is mandatory. ', size), 'not_applicable'],
      ['a response named again and again', mb('what you write the whole ', size), 'not_applicable'],
      ['a word of a wording, then blanks', `full${' '.repeat(size - 6)}x`, 'not_applicable'],
    ];
    for (const [name, description, outcome] of descriptions) {
      it(`reads ${name}: ${outcome}`, () => {
        assert.ok(description.length <= size);
        const rules = Array.from({ length: MAX_RULES }, (_, i) => ({ id: `r${i}`, description }));
        const graded = output('Your order has shipped.', rules);
        assert.equal(graded.rules.length, MAX_RULES);
        for (const r of graded.rules) assert.equal(r.outcome, outcome, r.explanation);
      });
    }
  });

  describe('the summary', () => {
    it('tells "I" said a megabyte of times as the speaker', () => {
      assert.equal(reportedSpeech(mb('I '), 'Person1', 'Person2'), 'Person1 '.repeat(MB / 2));
    });
    it('trims fillers and asides from a megabyte', () => {
      assert.equal(trimFillers(mb(', you know ')), ', you know ');
      assert.equal(trimFillers(`Well, ${RUNS.letters}`), `A${RUNS.letters.slice(1)}`);
    });
    it('reads a transcript of a megabyte and summarizes a ticket of a megabyte', () => {
      const lines = distinct((i) => `${i % 2 ? 'Customer' : 'Agent'}: message ${i}\n`);
      assert.deepEqual(parseConversation({ description: lines.join('') }).speakers, ['Agent', 'Customer']);
      const draft = summarizeLocal({
        conversation: {
          subject: 'Blank labels',
          description: mb('The printer prints blank labels. '),
          comments: [RUNS.dotted, RUNS.blanks],
        },
        language: 'en',
      });
      assert.ok(draft.parts.length > 0);
    });
  });

  describe('tags', () => {
    it('reads the words and word pairs of a megabyte', () => {
      assert.equal(terms(mb('refund ')).length, 2 * mb('refund ').split(' ').length - 3);
      assert.equal(terms(RUNS.dotted).length, 2 * (MB / 2) - 1);
    });
    it('finds the keywords of a megabyte of distinct words', () => {
      const words = distinct((i) => `refund${i.toString(36)}`);
      const tags = keywordTags({ message: `${words.join(' ')} refund refund the the the`, language: 'en', limit: 5 });
      assert.equal(tags[0].name, 'refund');
    });
  });

  describe('sentiment', () => {
    for (const [name, text] of Object.entries({
      ...RUNS,
      negations: mb('not '),
      emoticons: mb(' :'),
      mentions: mb('@a'),
      links: mb('http://x '),
    })) {
      it(`reads ${name}`, () => {
        const cue = lexicalCue(text, 'en');
        assert.ok(cue.score >= -1 && cue.score <= 1);
        assert.ok(segments(cleanMessage(text)).length <= 4);
      });
    }
    it('scores a megabyte of praise as positive', () => assert.ok(lexicalCue(mb('very good! '), 'en').score > 0.9));
  });

  describe('ask', () => {
    it('splits a megabyte of short sentences', () => {
      const list = distinct((i) => `Step ${i} is done.`);
      assert.deepEqual(sentences(list.join(' ')), list);
    });
    it('splits runs without sentence ends into one sentence each', () => {
      assert.deepEqual(sentences(RUNS.letters), [RUNS.letters]);
      assert.deepEqual(sentences(RUNS.dotted), [RUNS.dotted]);
    });
    it('reads the content words of a megabyte', () =>
      assert.equal(contentTokens(mb('refund ')).length, mb('refund ').length / 7));
    it('escapes a megabyte of line breaks and list markers for markdown', () => {
      assert.equal(escapeMarkdown(RUNS.newlines), RUNS.newlines);
      assert.equal(escapeMarkdown(mb('\n-')), '\n\\-'.repeat(MB / 2));
    });
    it('drops citations after a megabyte of blanks from the plain text', () => {
      const source = {
        kind: 'article' as const,
        id: 'a',
        title: 'T',
        url: 'https://help.example.com/a',
        similarity: 0.9,
        titleSimilarity: 0.9,
        retrievalRank: 0,
        boost: 0,
        passages: ['x'],
      };
      const item = presentAnswer({
        id: 'x',
        language: 'en',
        answer: {
          responseType: 'ai-answer-with-kb-links',
          parts: [{ text: `Done${mb(' ')}[1] then${mb(' ')}x` }],
          used: [source],
        },
      });
      assert.equal(item.plaintext, `Done then${mb(' ')}x`);
    });
    it('reads citations and a model reply after a megabyte of blanks', () => {
      assert.deepEqual(citedIn(`${RUNS.blanks} [1, 2]`), [1, 2]);
      assert.deepEqual(replyObject(`{"a": 1}${mb(' ')}x`.replace(/x$/, '')), { a: 1 });
      assert.throws(() => replyObject(`{"a": 1}${mb(' ')}x`));
    });
  });

  describe('article text', () => {
    for (const [name, body] of Object.entries({
      ...RUNS,
      openTags: mb('<p '),
      nestedTags: mb('<div>a'),
      unknownTags: mb('<x>'),
      headings: mb('# a\n'),
      brackets: mb('['),
      emphasis: mb('*a'),
    })) {
      it(`cuts ${name} into passages of bounded size`, () => {
        const passages = toPassages(articleSections(body));
        assert.ok(passages.every((p) => p.text.length <= 2 * DEFAULT_PASSAGE_OPTIONS.maxChars));
        assert.ok(
          passages.length <=
            body.length / (DEFAULT_PASSAGE_OPTIONS.maxChars - 2 * DEFAULT_PASSAGE_OPTIONS.overlapChars) + 1,
        );
      });
    }
  });

  it('reads HTML nested 200 deep as HTML, and a megabyte of nesting as plain text', () => {
    const deep = `${'<div>'.repeat(200)}<h2>Reset</h2><p>Open settings.</p>${'</div>'.repeat(200)}`;
    assert.deepEqual(articleSections(`<section>${deep}</section>`), [{ heading: 'Reset', text: 'Open settings.' }]);
    assert.equal(articleSections(`${mb('<div>', MB / 2)}Open settings.`)[0].text, 'Open settings.');
  });

  describe('many strings in one text', () => {
    it('answers includes() for tens of thousands of strings in one pass over a megabyte', () => {
      const needles = distinct((i) => `needle-${i}`, 200_000);
      const found = occurIn(`${RUNS.letters} ${needles.slice(0, 10).join(' ')}`, needles);
      assert.deepEqual(found.slice(0, 12), [...Array(10).fill(true), false, false]);
      assert.equal(found.filter(Boolean).length, 10);
    });
    it('agrees with includes() on small random texts', () => {
      let seed = 3;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      // Code units, lone surrogates included: 'abé😀' is five of them.
      const text = (n: number) => Array.from({ length: n }, () => 'abé😀'[Math.floor(random() * 5)]).join('');
      for (let t = 0; t < 2000; t++) {
        const haystack = text(Math.floor(random() * 40));
        const needles = Array.from({ length: 1 + Math.floor(random() * 6) }, () => text(Math.floor(random() * 5)));
        assert.deepEqual(
          occurIn(haystack, needles),
          needles.map((n) => haystack.includes(n)),
        );
      }
    });
  });

  it('language samples a long text in evenly spread pieces', () => {
    const sample = measure.languageSample(mb('Bonjour tout le monde. '));
    assert.ok(sample.length <= measure.LANGUAGE_SAMPLE.chars);
    assert.equal(measure.languageSample('short text'), 'short text');
  });
});
