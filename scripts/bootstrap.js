#!/usr/bin/env node
// Entry point of every npm script that needs the project's dependencies: it installs them when
// they are missing (a fresh clone), then runs the TypeScript command (commands.js).
// Plain JavaScript on purpose: it has to run before node_modules exists.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { commands, nodeArgs } = require('./commands');

const root = path.resolve(__dirname, '..');

function ensureDependencies() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs) return;
  console.log('[bootstrap] installing npm dependencies (npm ci) ...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-fund', '--no-audit'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const [command, ...args] = process.argv.slice(2);
if (!commands[command]) {
  console.error(`usage: bootstrap.js ${Object.keys(commands).join('|')} [args]`);
  process.exit(2);
}
ensureDependencies();
const result = spawnSync(process.execPath, nodeArgs(command, args), {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
