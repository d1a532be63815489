/**
 * A second worker and API in this process whose chat model is the test model server (the one
 * allowed stand-in) or the real local model, with a key for a fresh tenant: for the tests of the
 * model engines. Uploads can go through the shared harness with `harnessKey`, a key of the same tenant.
 */
import { SCOPES } from '../../api/scopes';
import { startInProcess, type InProcessApp } from '../../scripts/stack/in-process';
import { startChatServer, type ChatServer } from './chat-server';
import { createKey, type ApiResponse } from './harness';

export interface ModelApp extends RealModelApp {
  chat: ChatServer;
}

/** The same against the real local model server of the test stack (TEST_CHAT_URL), without the test server. */
export interface RealModelApp {
  app: InProcessApp;
  tenant: string;
  /** A key of the tenant for this app. */
  key: string;
  /** A key of the same tenant for the shared harness. */
  harnessKey: string;
  /** A JSON POST to this app with the tenant's key. */
  post<T = any>(path: string, body: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/** `env` adds to the app's settings: a model `test-model` with a 1 s timeout and no fallback by default. */
export async function startModelApp(env: Record<string, string> = {}): Promise<ModelApp> {
  const chat = await startChatServer();
  const app = await startApp({
    CHAT_BASE_URL: chat.baseUrl,
    CHAT_API_KEY: 'test',
    CHAT_MODEL: 'test-model',
    CHAT_TIMEOUT_MS: '1000',
    // The fault tests see the model's own failures; the fallback's tests ask for it.
    CHAT_FALLBACK: 'none',
    ...env,
  });
  return {
    ...app,
    chat,
    async close() {
      await app.close();
      await chat.close();
    },
  };
}

/**
 * An app whose chat model is the test stack's real local model server (TEST_CHAT_URL,
 * TEST_CHAT_MODEL, TEST_CHAT_CONTEXT_TOKENS) with bounded strings, as npm start runs it, and without a
 * fallback: a reply the engines cannot use fails the request. A small model on two cores takes
 * seconds a call: a minute per call, two per request.
 */
export function startRealModelApp(env: Record<string, string> = {}): Promise<RealModelApp> {
  const url = process.env.TEST_CHAT_URL;
  if (!url) throw new Error('TEST_CHAT_URL is not set: run the tests with `npm test`, which starts the local model');
  return startApp({
    CHAT_BASE_URL: url,
    CHAT_MODEL: process.env.TEST_CHAT_MODEL ?? 'local',
    CHAT_CONTEXT_TOKENS: process.env.TEST_CHAT_CONTEXT_TOKENS ?? '4096',
    CHAT_TIMEOUT_MS: '60000',
    DEADLINE_MODEL_MS: '150000',
    CHAT_FALLBACK: 'none',
    CHAT_BOUNDED_STRINGS: 'true',
    ...env,
  });
}

async function startApp(env: Record<string, string>): Promise<RealModelApp> {
  const app = await startInProcess({ env: { LOG_LEVEL: 'silent', ...env } });
  const { tenant, key: harnessKey } = await createKey();
  const { key } = await app.keys.create({ tenant, scopes: [...SCOPES] });
  return {
    app,
    tenant,
    key,
    harnessKey,
    async post(path, body, headers = {}) {
      const res = await fetch(`${app.baseUrl}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any, headers: res.headers };
    },
    close: () => app.close(),
  };
}
