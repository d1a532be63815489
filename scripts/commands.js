// The project's commands: the TypeScript file each runs, and the node options it runs with.
// Plain JavaScript on purpose: bootstrap.js reads it before node_modules exists.
'use strict';

const TS_NODE = ['-r', 'ts-node/register/transpile-only'];
// eval:report reads a tenant's results however many there are, keeping counters only: a TypeScript
// loader without a native compiler in memory (sucrase), a small young generation, and an old
// generation capped at 128 MB, so that V8 collects the pages already read instead of growing the
// heap (the peak of a report over 1,000,000 results: docs/benchmarks.md, bench:eval-report).
const LEAN = ['--max-semi-space-size=2', '--max-old-space-size=128', '-r', 'sucrase/register/ts'];

const commands = {
  start: { script: 'scripts/stack/start.ts', node: TS_NODE },
  'start:cluster': { script: 'scripts/stack/start-cluster.ts', node: TS_NODE },
  provision: { script: 'scripts/stack/provision-cli.ts', node: TS_NODE },
  test: { script: 'scripts/stack/test.ts', node: TS_NODE },
  'test:cluster': { script: 'scripts/stack/test-cluster.ts', node: TS_NODE },
  fuzz: { script: 'scripts/stack/fuzz.ts', node: TS_NODE },
  keys: { script: 'scripts/keys.ts', node: TS_NODE },
  feedback: { script: 'scripts/feedback.ts', node: TS_NODE },
  tags: { script: 'scripts/tags.ts', node: TS_NODE },
  tokens: { script: 'scripts/tokens.ts', node: TS_NODE },
  'eval:import': { script: 'scripts/eval-import.ts', node: TS_NODE },
  'eval:report': { script: 'scripts/eval-report.ts', node: LEAN },
  'eval:rules': { script: 'scripts/eval-rules.ts', node: TS_NODE },
  bench: { script: 'scripts/stack/bench.ts', node: TS_NODE },
};

/** The arguments of node that run `command` with `args`. */
function nodeArgs(command, args = []) {
  const c = commands[command];
  return [...c.node, c.script, ...args];
}

module.exports = { commands, nodeArgs, TS_NODE };
