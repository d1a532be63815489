// Preloaded into a command by a test (NODE_OPTIONS="--require <this file>"): prints the process's
// peak resident memory when it exits, as a last line of stderr: `peak-rss-kb <n>`.
'use strict';
process.on('exit', () => process.stderr.write(`\npeak-rss-kb ${process.resourceUsage().maxRSS}\n`));
