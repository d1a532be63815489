/**
 * The chat model a model benchmark runs against: the server named in the environment (CHAT_BASE_URL,
 * CHAT_MODEL, CHAT_API_KEY, CHAT_CONTEXT_TOKENS; or an API key alone, for OpenAI itself), or else
 * the stack's local llama.cpp server on the pinned model, started here next to the benchmark's stack
 * the way the stack starts it (scripts/stack: ensureChatModel, chatModelSpec, CHAT_MODEL_DEFAULTS),
 * with LOCAL_CHAT_MODEL and LOCAL_CHAT_THREADS, _CONTEXT, _PARALLEL as `npm start` reads them.
 */
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CONTEXT_TOKENS } from '../../domain/config';
import { ensureChatModel, isPinnedChatModel } from '../../scripts/stack/provision';
import {
  chatModelName,
  chatModelSpec,
  freePort,
  PINNED_MODEL_REPEAT_PENALTY,
  startService,
  stopService,
} from '../../scripts/stack/services';
import { CHAT_MODEL_DEFAULTS, localChatModel } from '../../scripts/stack/stack';

export interface BenchChatModel {
  server: 'local' | 'external';
  /** The OpenAI base URL. */
  url: string;
  model: string;
  apiKey: string;
  contextTokens: number;
  /** The local server's settings; none for an external one. */
  local?: { threads: number; ctx: number; parallel: number; repeat_penalty: number | null };
  stop(): Promise<void>;
}

const OPENAI_URL = 'https://api.openai.com/v1';

export async function benchChatModel(env: NodeJS.ProcessEnv = process.env): Promise<BenchChatModel> {
  const apiKey = env.CHAT_API_KEY || env.OPENAI_API_KEY;
  if (env.CHAT_BASE_URL || apiKey) {
    return {
      server: 'external',
      url: env.CHAT_BASE_URL || OPENAI_URL,
      model: env.CHAT_MODEL || 'gpt-4o-mini',
      apiKey: apiKey || 'local',
      contextTokens: Number(env.CHAT_CONTEXT_TOKENS) || DEFAULT_CONTEXT_TOKENS,
      stop: async () => {},
    };
  }
  const wanted = localChatModel(env) ?? {};
  const provisioned = await ensureChatModel();
  const settings = {
    model: wanted.model ?? provisioned.model,
    threads: wanted.threads ?? CHAT_MODEL_DEFAULTS.threads,
    ctx: wanted.ctx ?? CHAT_MODEL_DEFAULTS.ctx,
    parallel: wanted.parallel ?? CHAT_MODEL_DEFAULTS.parallel,
  };
  const port = await freePort();
  const logDir = path.join(env.SUPPORT_AI_BENCH_DATA ?? os.tmpdir(), 'logs');
  const started = Date.now();
  const service = await startService(chatModelSpec({ ...settings, python: provisioned.python, port, logDir }));
  const model = chatModelName(settings.model);
  console.log(
    `[bench] local chat model ${model} started in ${((Date.now() - started) / 1000).toFixed(1)} s (log ${service.logFile})`,
  );
  return {
    server: 'local',
    url: `http://127.0.0.1:${port}/v1`,
    model,
    apiKey: 'local',
    contextTokens: settings.ctx,
    local: {
      threads: settings.threads,
      ctx: settings.ctx,
      parallel: settings.parallel,
      // What chatModelSpec gives the server: the pinned model's penalty, none for another GGUF.
      repeat_penalty: isPinnedChatModel(settings.model) ? PINNED_MODEL_REPEAT_PENALTY : null,
    },
    stop: () => stopService(service),
  };
}
