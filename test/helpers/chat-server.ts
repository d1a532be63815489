/**
 * The one allowed stand-in: a small OpenAI-compatible chat-completions server on loopback that
 * answers deterministically, and can be told to stall, fail, return malformed JSON, cut a reply
 * at its token bound, or refuse the json_schema response format as some servers do.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ChatMode =
  | {
      kind: 'answer';
      content: string | ((messages: { role: string; content: string }[]) => string);
      /** `length`: the reply says it was cut at its token bound. */
      finishReason?: 'stop' | 'length';
      /** Refuse a json_schema response format with a 400, as servers without structured outputs do. */
      refuseJsonSchema?: boolean;
      /** Leave out the token usage, as some servers do. */
      noUsage?: boolean;
    }
  | { kind: 'stall' }
  | { kind: 'fail'; status: number; retryAfter?: string }
  | { kind: 'malformed' }
  /** Each request takes the next mode of the list; the last one stays. */
  | { kind: 'sequence'; modes: ChatMode[] };

export interface ChatServer {
  baseUrl: string;
  /** How the next requests are answered. */
  mode: ChatMode;
  requests: any[];
  close(): Promise<void>;
}

/** The mode this request is answered with: a sequence's next one. */
function next(state: ChatServer): Exclude<ChatMode, { kind: 'sequence' }> {
  const m = state.mode;
  if (m.kind !== 'sequence') return m;
  const [first, ...rest] = m.modes;
  if (rest.length > 0) state.mode = { kind: 'sequence', modes: rest };
  return next({ ...state, mode: first });
}

export async function startChatServer(mode: ChatMode = { kind: 'answer', content: 'ok' }): Promise<ChatServer> {
  const state: ChatServer = { baseUrl: '', mode, requests: [], close: async () => {} };
  const stalled = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      state.requests.push(body);
      const m = next(state);
      if (m.kind === 'stall') return void stalled.add(res);
      if (m.kind === 'fail')
        return void res
          .writeHead(m.status, {
            'Content-Type': 'application/json',
            ...(m.retryAfter ? { 'Retry-After': m.retryAfter } : {}),
          })
          .end(JSON.stringify({ error: { message: 'injected failure' } }));
      if (m.kind === 'malformed')
        return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"choices": [ not json');
      if (m.refuseJsonSchema && body.response_format?.type === 'json_schema')
        return void res
          .writeHead(400, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ error: { message: "response_format type 'json_schema' is not supported" } }));
      const content = typeof m.content === 'function' ? m.content(body.messages ?? []) : m.content;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${state.requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model ?? 'test-model',
          choices: [{ index: 0, finish_reason: m.finishReason ?? 'stop', message: { role: 'assistant', content } }],
          ...(m.noUsage ? {} : { usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 } }),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = async () => {
    for (const res of stalled) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
