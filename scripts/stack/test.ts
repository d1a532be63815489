/**
 * `npm test`: type-checks, provisions the stack, starts its own instances on free ports in a
 * temporary folder (with the local chat model server on the pinned model), runs the mocha suite
 * against them (the suite starts workers and the API itself), then stops everything, whatever the
 * outcome.
 */
import { spawn, spawnSync } from 'node:child_process';
import { ensureChromium, ensureTestServer } from './provision';
import { metricsOffUnlessSet } from './processes';
import { exitWith, withTestStack } from './test-stack';

/** The type check runs first on a full run: a type error fails `npm test` before any service starts. */
function typecheck(): number {
  console.log('[test] type-checking (tsc --noEmit) ...');
  const out = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json'], {
    stdio: 'inherit',
  });
  return out.status ?? 1;
}

async function main(): Promise<number> {
  if (process.argv.length <= 2 && typecheck() !== 0) return 1;
  // The evaluation report's test opens the page in headless Chromium.
  const chromium = await ensureChromium();
  // The workflow tests (test/workflows) run their workflows on Temporal's time-skipping test server.
  const testServer = await ensureTestServer();
  // The stack has the local chat model server on the pinned model (TEST_CHAT_URL, TEST_CHAT_MODEL) for the model engines' tests.
  return withTestStack(
    'test',
    (stack, dataDir) => {
      // With file arguments, run just those files (mocha would add them to the configured spec).
      const files = process.argv.slice(2);
      const mochaArgs = files.length
        ? [
            '--no-config',
            '--require',
            'ts-node/register/transpile-only',
            '--require',
            'test/helpers/hooks.ts',
            '--timeout',
            '120000',
            '--exit',
            '--reporter',
            'test/helpers/summary-reporter.js',
            ...files,
          ]
        : [];
      return new Promise<number>((resolve) => {
        const child = spawn(process.execPath, [require.resolve('mocha/bin/mocha.js'), ...mochaArgs], {
          stdio: 'inherit',
          env: {
            ...process.env,
            ...metricsOffUnlessSet(),
            ...stack.env,
            SUPPORT_AI_TEST_DATA: dataDir,
            TEST_STACK: '1',
            CHROMIUM_BIN: chromium,
            TEMPORAL_TEST_SERVER: testServer,
          },
        });
        child.on('exit', (c) => resolve(c ?? 1));
      });
    },
    { chatModel: true },
  );
}

exitWith('test', main);
