/**
 * Sentences and words of text in any language: sentences by `Intl.Segmenter` (ICU's rules), words
 * as runs of letters and digits, lower-cased, with the commonest function words of the seven
 * framing languages left out.
 */

const STOPWORDS = new Set(
  (
    'a an and are as at be but by can do does for from had has have how i if in into is it its me my no not of on or our so ' +
    'that the their then there these they this to was we what when where which who why will with you your would should could ' +
    'el la los las un una y o de del en que por para con como es se su al lo mi tu ' +
    'le les des du et est une pour dans qui ce il je ne pas sur au avec ' +
    'der die das und ist ein eine zu den mit von nicht ich es im dem sie wie ' +
    'o os as um uma e do da em com não meu ' +
    'il lo gli di che è per con non un una ' +
    'de het een en van ik te dat is op zijn niet'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words of `text`. */
export const words = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];

/** Content words, cut to their first 6 letters so that "deleting" meets "delete". */
export const contentTokens = (text: string): string[] =>
  words(text)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w))
    .map((w) => w.slice(0, 6));

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * Characters the segmenter is given at once. V8's Intl.Segmenter before V8 12.3 (Node 20) costs
 * each sentence the length of the whole text, so a long text is read in windows of this size.
 */
export const SEGMENTER_WINDOW = 4000;

/**
 * The sentences of one block, as the segmenter splits the whole block, read window by window: a
 * window's last two sentences are read again with the next window (the last may run past the
 * window, and whether a sentence ends before it can depend on its first characters: "etc. and").
 * A window with fewer sentences grows until it has three, or reaches the block's end.
 */
function segmentSentences(block: string): string[] {
  const out: string[] = [];
  let from = 0;
  let size = SEGMENTER_WINDOW;
  while (from < block.length) {
    const end = Math.min(block.length, from + size);
    const found = [...segmenter.segment(block.slice(from, end))];
    if (end === block.length) {
      out.push(...found.map((s) => s.segment));
      break;
    }
    if (found.length < 3) {
      size *= 2;
      continue;
    }
    const kept = found.slice(0, -2);
    out.push(...kept.map((s) => s.segment));
    from += found[found.length - 2].index;
    size = SEGMENTER_WINDOW;
  }
  return out;
}

/** The sentences of a text, trimmed, one paragraph break counting as a sentence end. */
export function sentences(text: string): string[] {
  return text
    .split(/\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)/)
    .flatMap((block) => segmentSentences(block.replace(/\s+/g, ' ').trim()).map((s) => s.trim()))
    .filter((s) => s.length > 0);
}
