import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import {
  BUILTIN_JUDGE,
  gradeWithBuiltinJudge,
  type JudgeRule,
  NEEDS_MODEL,
} from '../../domain/evaluation/builtin-judge';
import { countSentences, countWords } from '../../domain/evaluation/text-measures';
import { findCardNumbers, findPhones, luhn } from '../../domain/evaluation/sensitive-data';
import { topicSimilarities, topicSimilarity } from '../../domain/evaluation/topic';
import type { Embedder } from '../../domain/models/embeddings';
import { EMBEDDING_CHARS, embeddedPart } from '../../domain/text/records';

const ASK = [{ role: 'user', content: 'Please help me with my order.' }];

function grade(description: string, output: string, messages = ASK) {
  return gradeWithBuiltinJudge({ messages, output, rules: [{ id: 'r', description }] }).rules[0];
}

/** One rule family: the rule passes on `good` and fails on `bad`. */
function family(name: string, description: string, good: string, bad: string, messages = ASK) {
  it(`${name}: "${description.slice(0, 70)}"`, () => {
    const pass = grade(description, good, messages);
    assert.equal(pass.outcome, 'pass', `expected pass, got ${pass.outcome}: ${pass.explanation}`);
    const fail = grade(description, bad, messages);
    assert.equal(fail.outcome, 'fail', `expected fail, got ${fail.outcome}: ${fail.explanation}`);
    assert.ok(fail.explanation.length > 0);
  });
}

describe('built-in judge: rule families (a pass and a fail each)', () => {
  const SAME = "The answer is written in the same language as the user's last message.";
  family(
    'same language (Spanish)',
    SAME,
    'Abre Ajustes y elige Restablecer contraseña. Revisa también la carpeta de correo no deseado.',
    'Open Settings and choose Reset password. Also check your spam folder.',
    [{ role: 'user', content: '¿Cómo restablezco mi contraseña? No me llega el correo.' }],
  );
  family(
    'same language (German)',
    "Reply in the customer's language.",
    'Öffnen Sie die Einstellungen und wählen Sie Passwort zurücksetzen.',
    'Ouvrez les paramètres et choisissez Réinitialiser le mot de passe.',
    [{ role: 'user', content: 'Wie kann ich mein Passwort zurücksetzen? Die E-Mail kommt nicht an.' }],
  );
  family(
    'same language (French)',
    'Answer in the language of the question.',
    'Ouvrez les paramètres et choisissez Réinitialiser le mot de passe.',
    'Öffnen Sie die Einstellungen und wählen Sie Passwort zurücksetzen.',
    [{ role: 'user', content: 'Comment réinitialiser mon mot de passe ? Je ne reçois pas le courriel.' }],
  );
  family(
    'same language (English, the last user message counts)',
    'Respond in the language the user wrote in.',
    'Open Settings and choose Reset password, then check your spam folder.',
    'Abre Ajustes y elige Restablecer contraseña, luego revisa la carpeta de spam.',
    [
      { role: 'user', content: '¿Hola, me ayudas?' },
      { role: 'assistant', content: 'Claro.' },
      { role: 'user', content: 'Actually, please help me in English: how do I reset my password?' },
    ],
  );
  it('reads on-topic rules in their common wordings, and grades them by the measured similarity', () => {
    for (const description of [
      "The answer stays on the user's question and does not drift to unrelated topics.",
      'Stay on topic.',
      'Keep the reply relevant to the question.',
      'Do not go off-topic.',
    ]) {
      const at = (topicSimilarity?: number) =>
        gradeWithBuiltinJudge({ messages: ASK, output: 'x', rules: [{ id: 'r', description }], topicSimilarity })
          .rules[0];
      assert.equal(at(0.95).outcome, 'pass', description);
      assert.equal(at(0.5).outcome, 'fail', description);
      assert.equal(at(undefined).outcome, 'not_applicable', description);
    }
  });
  it('leaves same-language not applicable when a side is too short to tell its language', () => {
    const r = grade(SAME, 'Open Settings and choose Reset password.', [{ role: 'user', content: 'ok' }]);
    assert.equal(r.outcome, 'not_applicable');
    assert.match(r.explanation, /too little text/);
  });
  family('words at least', 'Answer with at least 5 words.', 'One two three four five.', 'One two.');
  family('words under', 'Keep it under 5 words', 'Short answer here.', 'This answer has far too many words in it.');
  family('words between', 'Write between 3 and 5 words.', 'One two three four.', 'One two.');
  family('sentences', 'Use at most 2 sentences.', 'Dr. Smith called. He left.', 'One. Two. Three.');
  family(
    'paragraphs (*** divider)',
    'There should be 2 paragraphs. Paragraphs are separated with the markdown divider: ***',
    'First part.\n***\nSecond part.',
    'A.\n***\nB.\n***\nC.',
  );
  family(
    'paragraphs (blank lines)',
    'Reply in 2 paragraphs separated by a blank line.',
    'First.\n\nSecond.',
    'Only one paragraph.',
  );
  family(
    'nth paragraph first word',
    'The second paragraph must start with the word "However".',
    'Hello.\n\nHowever, not today.',
    'Hello.\n\nBut not today.',
  );
  family(
    'characters',
    'Your response must be under 20 characters.',
    'Short.',
    'This is definitely longer than twenty characters.',
  );
  family(
    'required keywords',
    'Include the keywords refund and warranty',
    'Your refund is covered by the warranty.',
    'Your refund is on its way.',
  );
  family('forbidden words', 'Do not use the word "sorry".', 'We apologise for the delay.', 'Sorry for the delay.');
  family(
    'keyword frequency',
    'The word "refund" should appear at least 2 times.',
    'A refund, then another refund.',
    'One refund only.',
  );
  family(
    'keyword frequency, less than',
    'Mention "delay" fewer than 2 times.',
    'There is a delay.',
    'A delay and a delay.',
  );
  family('letter frequency', 'The letter q should appear at least 3 times', 'A quick quiet quest.', 'A quick test.');
  family(
    'language',
    'Your answer must be in Spanish',
    'Hola, gracias por escribirnos. Su pedido llegará mañana por la tarde.',
    'Hello, thank you for writing to us. Your order will arrive tomorrow afternoon.',
  );
  family(
    'language (English and lowercase)',
    'Your entire response should be in English, and in all lowercase letters.',
    'your order has shipped and will arrive soon.',
    'Your order has shipped and will arrive soon.',
  );
  family('all uppercase', 'Write everything in capital letters.', 'YOUR ORDER HAS SHIPPED.', 'Your order has shipped.');
  family('all lowercase', 'in all lowercase letters', 'all lower here', 'Not all lower');
  family(
    'capital word count',
    'words with all capital letters should appear at least 2 times',
    'This is VERY IMPORTANT.',
    'This is VERY important.',
  );
  family(
    'JSON output',
    'The entire output should be in JSON format',
    '```json\n{"status": "shipped"}\n```',
    '{status: shipped}',
  );
  family('bullet list count', 'exactly 3 bullet points using markdown', '* one\n* two\n* three', '* one\n* two');
  family(
    'highlighted sections',
    'highlight at least 2 sections with markdown, i.e. *highlighted section*',
    'See *this* and **that**.',
    'See *this* only.',
  );
  family(
    'title',
    'Include a title wrapped in double angular brackets, such as <<poem of joy>>',
    '<<Your order>>\nIt shipped.',
    'Your order\nIt shipped.',
  );
  family(
    'placeholders',
    'at least 2 placeholders in square brackets like [address]',
    'Dear [name], we ship to [address].',
    'Dear [name], we ship soon.',
  );
  family(
    'postscript P.S.',
    'Include a postscript starting with P.S.',
    'Thanks!\n\nP.S. Your coupon is inside.',
    'Thanks! Your coupon is inside.',
  );
  family(
    'postscript P.P.S',
    'At the end of your response, add a postscript starting with P.P.S',
    'Thanks.\nP.P.S. One more thing.',
    'Thanks.\nP.S. One more thing.',
  );
  family(
    'quotation wrapping',
    'Wrap your entire response in double quotation marks',
    '"Your order has shipped."',
    'Your order has shipped.',
  );
  family(
    'starting phrase',
    'Start your reply with "Hi there".',
    'Hi there, your order shipped.',
    'Hello, your order shipped.',
  );
  family(
    'ending phrase',
    "End your response with 'Is there anything else I can help with?'",
    'Your order shipped. Is there anything else I can help with?',
    'Your order shipped. Bye.',
  );
  family('no commas', 'Do not use any commas', 'Your order shipped today.', 'Yes, your order shipped.');
  family('no commas (variant)', 'no commas allowed', 'Fine.', 'Well, fine.');
  family(
    'repeated request',
    'First repeat the request word for word without change, then give your answer',
    'Write a haiku about rain. Soft rain on the roof...',
    'Soft rain on the roof...',
    [
      {
        role: 'user',
        content:
          'Write a haiku about rain.\nFirst repeat the request word for word without change, then give your answer.',
      },
    ],
  );
  family(
    'repeated request (quoted)',
    'Begin by repeating this request verbatim: "Summarise the ticket."',
    'Summarise the ticket. The customer wants a refund.',
    'The customer wants a refund.',
  );
  family(
    'two responses',
    'Give two different responses separated by 6 asterisks ******',
    'Yes, it shipped.\n******\nIt is on its way.',
    'Yes.\n******\nYes.',
  );
  family(
    'constrained answer',
    'Answer with one of the following options: My answer is yes., My answer is no., My answer is maybe.',
    'My answer is yes.',
    'Yes, I think so.',
  );
  family(
    'sections',
    'Your response must have 2 sections. Mark the beginning of each section with SECTION X',
    'SECTION 1\nIntro.\nSECTION 2\nDetails.',
    'SECTION 1\nIntro only.',
  );
  family(
    'contains a link',
    'The answer must contain a link to the help center.',
    'See https://help.example.com/returns for details.',
    'See the help center for details.',
  );
  family(
    'no links',
    'Do not include any links.',
    'See the help center for details.',
    'Go to www.example.com/returns now.',
  );
  family('no URLs', 'No URLs.', 'Open the app settings.', 'Open https://example.com.');
  family(
    'no email addresses',
    'Never include email addresses in the reply.',
    'Please contact support through the app.',
    'Write to jane.doe@example.com.',
  );
  family(
    'no phone numbers',
    'Do not share phone numbers.',
    'Order 12345 shipped on 2024-03-05 for $1299.',
    'Call us at +1 (555) 123-4567.',
  );
  family(
    'no card numbers',
    'The reply must not contain credit card numbers.',
    'The card ending in 4242 was charged.',
    'Card 4111 1111 1111 1111 was charged.',
  );
  family(
    'no secrets',
    'Never reveal secrets such as API keys, tokens, private keys or passwords.',
    'Rotate your key in the dashboard.',
    'Use the key AKIAIOSFODNN7EXAMPLE to sign in.',
  );
  family(
    'no secrets (password)',
    'Do not include passwords.',
    'Reset it from the login page.',
    'Your password: hunter2xyz',
  );
  family('no bullet points', 'Avoid bullet points.', 'Step one, then step two.', '* Step one\n* Step two');
  family(
    'links only from the input',
    'The answer only links to URLs that appear in the conversation or the provided sources.',
    'See https://help.example.com/reset for the steps.',
    'See https://made-up.example.org/reset for the steps.',
    [{ role: 'user', content: 'Sources: https://help.example.com/reset\nHow do I reset my router?' }],
  );
  family(
    'mentions a product',
    'Mention the product "Acme Router X2".',
    'Try restarting the Acme Router X2 first.',
    'Try restarting your router first.',
  );
});

describe('built-in judge: results', () => {
  it('marks a rule it cannot read not_applicable, asking for a model judge', () => {
    for (const description of ['Be polite and empathetic.', 'Do not promise refunds the policy does not allow.']) {
      const r = grade(description, 'Anything.');
      assert.equal(r.outcome, 'not_applicable');
      assert.equal(r.explanation, NEEDS_MODEL);
    }
  });

  it('never passes a rule it read only in part', () => {
    const rule = 'The summary should be at most 3 sentences and mention the ticket ID.';
    const partly = grade(rule, 'The customer asked for a refund. It was approved.');
    assert.equal(partly.outcome, 'not_applicable');
    assert.match(partly.explanation, /partly checked .*model judge.*mention the ticket ID/);
    const failed = grade(rule, 'One. Two. Three. Four.');
    assert.equal(failed.outcome, 'fail');
    assert.match(failed.explanation, /4 sentences; at most 3 required \(not checked: "mention the ticket ID"\)/);
  });

  it('orders critical failures first, then other failures, passes and not_applicable', () => {
    const rules: JudgeRule[] = [
      { id: 'info-fail', description: 'Do not use any commas', severity: 'info' },
      { id: 'pass', description: 'Answer with at least 2 words' },
      { id: 'unreadable', description: 'Be friendly.' },
      { id: 'warning-fail', description: 'Include the keywords refund' },
      { id: 'critical-fail', description: 'Write everything in capital letters.', severity: 'critical' },
    ];
    const g = gradeWithBuiltinJudge({ messages: ASK, output: 'Yes, it shipped.', rules });
    assert.deepEqual(
      g.rules.map((r) => r.ruleId),
      ['critical-fail', 'warning-fail', 'info-fail', 'pass', 'unreadable'],
    );
    assert.equal(g.judge, BUILTIN_JUDGE);
    assert.equal(g.correctness.verdict, 'defect');
    assert.ok(g.correctness.score <= 2);
  });

  it('gives an honest correctness estimate with a 0..5 score', () => {
    const messages = [{ role: 'user', content: 'How do I reset my router password?' }];
    const g = gradeWithBuiltinJudge({
      messages,
      output: 'Hold the reset button on the router for ten seconds, then set a new password.',
      rules: [{ id: 'w', description: 'Use at most 40 words.' }],
    });
    assert.equal(g.correctness.verdict, 'correct');
    assert.ok(g.correctness.score > 3 && g.correctness.score <= 5, String(g.correctness.score));
    assert.match(g.correctness.explanation, /1 of 1 checkable rules passed/);
    assert.match(g.correctness.explanation, /cannot verify factual correctness/);
    const empty = gradeWithBuiltinJudge({ messages, output: '  ', rules: [] });
    assert.deepEqual([empty.correctness.verdict, empty.correctness.score], ['defect', 0]);
  });

  it('is deterministic', () => {
    const input = {
      messages: ASK,
      output: 'Yes, it shipped. P.S. thanks',
      rules: [
        { id: 'a', description: 'No commas allowed.' },
        { id: 'b', description: 'Include a postscript starting with P.S.' },
      ],
    };
    assert.deepEqual(gradeWithBuiltinJudge(input), gradeWithBuiltinJudge(input));
  });
});

describe('built-in judge: measurements', () => {
  it('counts words and sentences like IFEval', () => {
    assert.equal(countWords("It's 5 o'clock, isn't it?"), 8); // runs of letters and digits: It s 5 o clock isn t it
    assert.equal(countSentences('Dr. Smith arrived at 5 p.m. He sat down. Was it late? Yes!'), 3 + 1);
    // Like Punkt, a list number before a capitalised word ends a "sentence" of its own.
    assert.equal(countSentences('1. First item\n2. Second item'), 3);
    assert.equal(countSentences('It costs 5. then more'), 1);
    assert.equal(countSentences('No full stop at the end\nand a new line'), 1);
  });

  it('finds card numbers by the Luhn check and leaves other numbers alone', () => {
    assert.ok(luhn('4111111111111111'));
    assert.deepEqual(findCardNumbers('4111 1111 1111 1112 and 1234567890123'), []);
    assert.deepEqual(findPhones('Order #123456789 in 2024, call 555-123-4567'), ['555-123-4567']);
  });
});

describe('on-topic: what is embedded', () => {
  it('embeds at most the first 2,000 characters of an output, never half a surrogate pair', async () => {
    const sent: string[] = [];
    const embedder: Embedder = {
      model: 'recording',
      async embed({ texts }) {
        sent.push(...texts);
        return texts.map(() => [1]);
      },
    };
    const output = `${'a'.repeat(EMBEDDING_CHARS - 1)}😀${'b'.repeat(1_000_000)}`;
    const similarity = await topicSimilarity({ embedder }, { messages: ASK, output, interactive: true });
    assert.equal(similarity, 1);
    assert.equal(sent[1], 'a'.repeat(EMBEDDING_CHARS - 1));
    assert.equal(embeddedPart('short text'), 'short text');
    const cut = embeddedPart(`x${'😀'.repeat(EMBEDDING_CHARS)}`);
    assert.equal(cut.length, EMBEDDING_CHARS - 1);
    assert.ok(cut.endsWith('😀'));
  });
});

describe('on-topic in a batch: measured a group at a time', () => {
  it('embeds up to 16 pairs per query call and per passage call, and leaves a failed group unmeasured', async () => {
    const calls: { inputType: string; texts: string[] }[] = [];
    const embedder: Embedder = {
      model: 'recording',
      async embed({ texts, inputType }) {
        calls.push({ inputType, texts });
        if (texts.some((t) => t.includes('broken'))) throw new Error('embedding server down');
        return texts.map(() => [1]);
      },
    };
    const pairs = Array.from({ length: 40 }, (_, i) => ({
      messages: [{ role: 'user', content: i === 20 ? 'broken' : `question ${i}` }],
      output: `answer ${i}`,
    }));
    pairs[3] = { messages: [{ role: 'assistant', content: 'no question here' }], output: 'x' };
    const similarities = await topicSimilarities({ embedder }, { pairs, interactive: false });
    // 39 comparable pairs: groups of 16, 16 and 7, each one query call and one passage call.
    assert.deepEqual(
      calls.map((c) => [c.inputType, c.texts.length]),
      [
        ['query', 16],
        ['passage', 16],
        ['query', 16],
        ['passage', 16],
        ['query', 7],
        ['passage', 7],
      ],
    );
    assert.equal(similarities[3], undefined, 'nothing asked: nothing to compare');
    assert.equal(similarities[0], 1);
    // pair 20 sits in the second group (comparable pairs 16 to 31): that group failed as a whole.
    assert.equal(similarities[20], undefined);
    assert.equal(similarities[18], undefined);
    assert.equal(similarities[39], 1);
  });
});
