/**
 * Turning an English utterance into reported speech, as a summary tells it: "I've been having
 * trouble breathing" said by Person2 becomes "Person2 has been having trouble breathing", and
 * "you" becomes the other speaker when there are exactly two. Also drops the fillers that open
 * spoken sentences ("Well,", "Oh,", "OK,"). Rules over common forms only; what they do not know
 * stays as it was said.
 */

const MODALS = new Set([
  'can',
  'could',
  'will',
  'would',
  'shall',
  'should',
  'may',
  'might',
  'must',
  'did',
  'had',
  'was',
  'used',
  'ought',
]);
const NEGATED = new Set([
  "can't",
  "couldn't",
  "won't",
  "wouldn't",
  "shouldn't",
  "didn't",
  "hadn't",
  "wasn't",
  "mustn't",
  'cannot',
  'never',
]);
const ADVERBS = new Set([
  'just',
  'really',
  'also',
  'always',
  'never',
  'often',
  'usually',
  'still',
  'only',
  'actually',
  'already',
  'even',
  'sometimes',
  'definitely',
  'probably',
  'certainly',
  'hardly',
  'rarely',
  'seldom',
  'truly',
  'honestly',
  'totally',
  'completely',
  'simply',
  'almost',
  'kind',
  'sort',
  'finally',
  'guess',
  'hope',
]);
/** Common irregular past forms, which take no -s. */
const PAST = new Set(
  'was were went got saw had did thought said told made took came bought found knew left lost met paid sent spent felt heard kept gave ran ate drank wrote read brought caught taught sold sat stood understood forgot began broke chose drove fell flew forgave grew hid hit hurt let put quit set shut slept spoke stole swam threw woke won wore became'.split(
    ' ',
  ),
);
/** Words after "I"/"you" that are not verbs to inflect. */
const NOT_VERBS = new Set([
  'and',
  'or',
  'but',
  'too',
  'so',
  'a',
  'an',
  'the',
  'to',
  'in',
  'on',
  'at',
  'for',
  'with',
  'as',
  'if',
  'then',
  'there',
  'here',
  'all',
  'both',
  'guys',
]);

const BE_HAVE_DO: Record<string, string> = {
  am: 'is',
  are: 'is',
  were: 'was',
  have: 'has',
  do: 'does',
  "don't": "doesn't",
  "aren't": "isn't",
  "haven't": "hasn't",
  "weren't": "wasn't",
};

const CONTRACTED: Record<string, string> = { "'m": 'is', "'re": 'is', "'ve": 'has', "'ll": 'will', "'d": 'would' };

/** The third-person singular present of a bare verb: want → wants, go → goes, try → tries. */
export function thirdPersonVerb(verb: string): string {
  const v = verb.toLowerCase();
  if (v === 'have') return 'has';
  if (v === 'be') return 'is';
  if (/(s|sh|ch|x|z|o)$/.test(v)) return `${verb}es`;
  if (/[^aeiou]y$/.test(v)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** Whether `word` (lower-case) could be a bare present verb after "I" / "you". */
const bareVerb = (word: string) =>
  /^[a-z]+$/.test(word) &&
  word.length > 1 &&
  !MODALS.has(word) &&
  !PAST.has(word) &&
  !NOT_VERBS.has(word) &&
  !/[^e]ed$/.test(word) &&
  !/ing$/.test(word) &&
  !/ly$/.test(word);

/**
 * The sentence with "I" (and with a listener, "you") told as the speaker (listener). `speaker`
 * and `listener` are display names ("Person1", "the agent").
 */
export function reportedSpeech(sentence: string, speaker: string, listener?: string): string {
  const people: [RegExp, string][] = [[/^i$/i, speaker]];
  if (listener) people.push([/^you$/i, listener]);
  // Tokens: words (with an apostrophe inside) and everything between them.
  const parts = sentence.split(/([\p{L}\p{N}]+(?:'[\p{L}]+)?)/u);
  const lower = (i: number) => parts[i]?.toLowerCase() ?? '';
  for (let i = 1; i < parts.length; i += 2) {
    const w = lower(i);
    const person = (word: string) => people.find(([re]) => re.test(word))?.[1];
    // Contracted subject: I'm, you've …
    const contraction = /^(i|you)('m|'re|'ve|'ll|'d)$/.exec(w);
    if (contraction) {
      const who = person(contraction[1]);
      if (who) parts[i] = `${who} ${CONTRACTED[contraction[2]]}`;
      continue;
    }
    const who = person(w);
    if (who) {
      const prev = i >= 2 ? lower(i - 2) : '';
      const between = i >= 2 ? parts[i - 1] : '';
      // Inverted question: "do you", "am I", "have you" → "does Person1", "is Person2", "has Person1".
      if (
        prev &&
        /^\s+$/.test(between) &&
        (BE_HAVE_DO[prev] || MODALS.has(prev) || NEGATED.has(prev) || prev === 'is' || prev === 'does')
      ) {
        if (BE_HAVE_DO[prev]) parts[i - 2] = matchCase(parts[i - 2], BE_HAVE_DO[prev]);
        parts[i] = who;
        continue;
      }
      parts[i] = who;
      // Subject followed by its verb (maybe after an adverb): inflect it.
      // Words sit at the odd indices of `parts`: the next two.
      const [next, after] = [i + 2, i + 4].filter((j) => j < parts.length);
      if (next === undefined || !/^\s+$/.test(parts[i + 1])) continue;
      const nw = lower(next);
      if (BE_HAVE_DO[nw]) {
        parts[next] = BE_HAVE_DO[nw];
      } else if (ADVERBS.has(nw) && after !== undefined && /^\s+$/.test(parts[next + 1])) {
        const aw = lower(after);
        if (BE_HAVE_DO[aw]) parts[after] = BE_HAVE_DO[aw];
        else if (bareVerb(aw)) parts[after] = thirdPersonVerb(parts[after]);
      } else if (bareVerb(nw) && !(nw === 'i' || nw === 'you')) {
        parts[next] = thirdPersonVerb(parts[next]);
      }
      continue;
    }
    if (w === 'me' || w === 'myself') parts[i] = speaker;
    else if (w === 'my' || w === 'mine') parts[i] = `${speaker}'s`;
    else if (listener && (w === 'your' || w === 'yours')) parts[i] = `${listener}'s`;
    else if (listener && w === 'yourself') parts[i] = listener;
  }
  const text = parts.join('');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function matchCase(original: string, replacement: string): string {
  return /^[A-Z]/.test(original) ? replacement.charAt(0).toUpperCase() + replacement.slice(1) : replacement;
}

/**
 * Openers of spoken sentences that carry nothing when a comma or a stop follows them: "Well,",
 * "Oh,", "OK,", "Yes,", a greeting or thanks (also in the other six framing languages), a form
 * of address.
 */
const FILLER =
  /^(?:(?:well|oh|ah|uh|um+|hmm+|ok(?:ay)?|yes|yeah|yep|no|sure|right|alright|so|hi|hello|hey|wow|gee|oops|look|listen|please|thanks|thank you|sorry|excuse me|of course|i see|you know|i mean|honey|dear|darling|sir|madam|ma'am|hola|gracias|bonjour|merci|hallo|danke|olá|obrigad[oa]|ciao|grazie|hoi|bedankt)[,.!]\s*)+/i;
/** Asides inside a sentence: ", you know," ", I mean,". */
const ASIDE = /,\s*(?:you know|i mean|you see)\s*(?=[,.!?])/gi;

/** The sentence without its opening fillers, capitalised; empty when nothing else is left. */
export function trimFillers(sentence: string): string {
  const rest = sentence.replace(FILLER, '').replace(ASIDE, '');
  if (!/[\p{L}\p{N}]/u.test(rest)) return '';
  return rest === sentence ? sentence : rest.charAt(0).toUpperCase() + rest.slice(1);
}
