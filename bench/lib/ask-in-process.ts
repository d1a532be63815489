/**
 * The whole ask in this process, step after step, without Temporal: the steps of the ask workflow
 * (workflows/ask.ts) over domain/ask/answer.ts, for bench:ask's in-process baseline
 * (direct-ask-server.ts). With `store: false` the answer is not stored.
 */
import {
  answerFrom,
  answerLocally,
  composeModelAnswer,
  retrieveSources,
  readSessionTurns,
  rewriteFollowUp,
  storeAnswer,
  type AskAnswer,
  type AskDeps,
  type AskQuestion,
  type AskTimings,
} from '../../domain/ask/answer';

export async function askInProcess(
  deps: AskDeps,
  input: AskQuestion & { store?: boolean },
): Promise<AskAnswer & { timings: AskTimings }> {
  const started = performance.now();
  const history = input.followUp ? await readSessionTurns(deps, input) : [];
  // As the workflow reports it: no `history` step without a session to read.
  const historyMs = input.followUp ? performance.now() - started : undefined;
  if (deps.chat.engine === 'local') {
    const answered = await answerLocally(deps, { question: input, history, store: input.store });
    return { ...answered, timings: { ...answered.timings, history: historyMs } };
  }
  const standalone =
    history.length > 0 ? await rewriteFollowUp(deps, { question: input.question, history }) : undefined;
  const retrieving = performance.now();
  const found = await retrieveSources(deps, { ...input, history, standalone, engine: 'openai' });
  const retrieveMs = performance.now() - retrieving;
  const composing = performance.now();
  const answer = await composeModelAnswer(deps, {
    question: input.question,
    history,
    sources: found.sources,
    language: found.language,
  });
  const timings: AskTimings = {
    ...found.timings,
    history: historyMs,
    retrieve: retrieveMs,
    model: performance.now() - composing,
  };
  const result = answerFrom(input, found, 'openai', answer);
  if (input.store !== false) {
    const storing = performance.now();
    await storeAnswer(deps, { question: input, answer: result });
    timings.store = performance.now() - storing;
  }
  return { ...result, timings };
}
