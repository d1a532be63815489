/**
 * What an ask reads of tenant text, bounded so that its CPU on the API process's event loop does
 * not grow with the question or the sources (issue 33, docs/api.md "Input limits"). A question may
 * be 10,000 characters and a case's public comments about 1.5 MB; retrieval searches for the
 * question's opening (the embedding model reads about 500 characters of it anyway) and the engines
 * read each source's opening: the relevance check (word coverage), the local extract's sentences
 * and the model's prompt (2,500 characters of each source) all stay within these bounds.
 */

export const ASK_BOUNDS = {
  /** Characters of the (standalone) question that retrieval and composition read. */
  queryChars: 2000,
  /** Characters of each passage of a source (a case's comments, an incident's text, an article passage). */
  passageChars: 4000,
  /** Characters of an incident's latest update told in an answer. */
  updateChars: 1000,
};

const isBlank = (code: number) => code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;

/**
 * The opening of `text` of at most `max` UTF-16 units: cut after its last blank within the last
 * tenth of the bound (else at the bound), never inside a surrogate pair. `text` itself when it fits.
 */
export function opening(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const low = max - Math.floor(max / 10);
  for (let i = max; i > low; i -= 1) {
    if (isBlank(text.charCodeAt(i))) {
      end = i;
      break;
    }
  }
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end).trimEnd();
}

/** The question as retrieval and composition read it. */
export const searchedQuestion = (question: string) => opening(question, ASK_BOUNDS.queryChars);

/** A source's passage as composition reads it. */
export const boundedPassage = (text: string) => opening(text, ASK_BOUNDS.passageChars);
