/**
 * bench:ask's baseline in a process of its own: `POST /ask` with `{tenant, query}` runs
 * askInProcess (the ask workflow's steps one after the other, no Temporal) with dependencies built
 * like the worker's, and answers what the API would, with the same Server-Timing steps. The
 * benchmark calls it and the API the same way, over loopback HTTP from its own process, so both
 * sides pay the same HTTP and neither shares an event loop with the client or the other.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { presentAnswer } from '../../api/presenters/ask';
import { phaseTimings } from '../../api/routes/server-timing';
import { askInProcess } from './ask-in-process';
import { createChatGateway } from '../../domain/models/chat';
import { textLanguage } from '../../domain/text/language';
import { loadWorkerConfig } from '../../worker/config';
import { createActivityDeps } from '../../worker/deps';

const workerConfig = loadWorkerConfig();
const chat = createChatGateway(workerConfig.services.chat);
if (chat.engine !== 'local') throw new Error('the baseline must use the local engine, like the API under measurement');
const deps = { ...createActivityDeps(workerConfig), chat };

async function answer(o: { tenant: string; query: string }) {
  const started = performance.now();
  const question = o.query.trim();
  const id = randomUUID();
  const result = await askInProcess(deps, {
    tenant: o.tenant,
    answerId: id,
    chatId: randomUUID(),
    question,
    followUp: false,
    productIds: [],
    author: 'customer',
    language: textLanguage(question),
    now: Date.now(),
  });
  const body = presentAnswer({ id, answer: result.answer, language: result.language, intentTag: result.intentTag });
  return {
    body,
    serverTiming: [phaseTimings(result.timings), `ask;dur=${(performance.now() - started).toFixed(1)}`].join(', '),
  };
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return void res.writeHead(200).end('ok');
  let raw = '';
  req.on('data', (chunk) => (raw += chunk));
  req.on('end', () => {
    answer(JSON.parse(raw)).then(
      ({ body, serverTiming }) =>
        res
          .writeHead(200, { 'Content-Type': 'application/json', 'Server-Timing': serverTiming })
          .end(JSON.stringify(body)),
      (err: Error) =>
        res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: err.message })),
    );
  });
});
server.listen(Number(process.env.DIRECT_ASK_PORT), '127.0.0.1');
