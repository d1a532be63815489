/**
 * The throwaway stack of a test run (`npm test`, `npm run test:fuzz`): its own instances on free
 * ports in a temporary folder, so a running `npm start` is not affected. It is stopped whatever
 * the outcome; the service logs are kept when the run fails (or with KEEP_TEST_DATA=1). Jaeger runs
 * with it (JAEGER_QUERY_URL, JAEGER_OTLP_ENDPOINT), but no process traces unless a test turns it on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureJaeger, startJaeger } from './provision-jaeger';
import { freePort } from './services';
import { RunningStack, freePorts, startStack } from './stack';

/**
 * Runs `run` against a fresh test stack and returns its exit code (0 = passed). With `chatModel`,
 * the stack has the local chat model server on the pinned model too, and its environment names it
 * in TEST_CHAT_URL, TEST_CHAT_MODEL and TEST_CHAT_CONTEXT_TOKENS: not CHAT_BASE_URL, so the worker
 * and the API a test starts keep the built-in engine unless that test points them at it.
 */
export async function withTestStack(
  label: string,
  run: (stack: RunningStack, dataDir: string) => Promise<number>,
  o: { chatModel?: boolean } = {},
): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `support-ai-${label}-`));
  // Jaeger's build (minutes, only the first time) goes on while the stack is provisioned and started.
  const jaegerBin = ensureJaeger();
  jaegerBin.catch(() => undefined);
  // The Web UI runs too, so the workflows a test run starts can be looked at (and a test checks it).
  const stack = await startStack({
    dataDir,
    ports: await freePorts(),
    headless: false,
    chatModel: o.chatModel ? {} : undefined,
  });
  try {
    const free = new Set<number>();
    while (free.size < 3) free.add(await freePort());
    const [otlpHttp, query, queryGrpc] = [...free];
    const ports = { otlpHttp, query, queryGrpc };
    Object.assign(stack.env, await startJaeger({ bin: await jaegerBin, ports, dataDir, supervisor: stack.supervisor }));
  } catch (err) {
    await stack.stop();
    throw err;
  }
  if (stack.chatModel) {
    stack.env.TEST_CHAT_URL = stack.chatModel.url;
    stack.env.TEST_CHAT_MODEL = stack.chatModel.model;
    stack.env.TEST_CHAT_CONTEXT_TOKENS = String(stack.chatModel.contextTokens);
  }
  console.log(`[${label}] Temporal Web UI of this run: ${stack.env.TEMPORAL_UI_URL}`);
  let code = 1;
  try {
    code = await run(stack, dataDir);
  } finally {
    await stack.stop();
    if (code === 0 && !process.env.KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
    else console.log(`[${label}] service logs kept in ${path.join(dataDir, 'logs')}`);
  }
  return code;
}

/** Runs `main` and exits with its code; an exception is printed and exits 1. */
export function exitWith(label: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`[${label}] ${err.stack ?? err}`);
      process.exit(1);
    },
  );
}
