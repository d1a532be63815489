/**
 * `npm run test:cluster`: the tests that need several API instances and workers (test/cluster).
 * Each test file launches `npm run start:cluster` itself on free ports and a temporary folder, so
 * this only runs mocha on that folder (arguments: other files of it).
 */
import { spawn } from 'node:child_process';

const files = process.argv.slice(2);
const child = spawn(
  process.execPath,
  [
    require.resolve('mocha/bin/mocha.js'),
    '--no-config',
    '--require',
    'ts-node/register/transpile-only',
    '--timeout',
    '900000',
    '--exit',
    '--reporter',
    'test/helpers/summary-reporter.js',
    // The whole folder, as CI runs it, refuses a left-over `.only`; named files allow it.
    ...(files.length ? files : ['--forbid-only', 'test/cluster/**/*.test.ts']),
  ],
  { stdio: 'inherit' },
);
child.on('exit', (code) => process.exit(code ?? 1));
