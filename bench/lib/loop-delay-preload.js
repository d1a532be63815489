/**
 * Preloaded into the API process by bench:isolation (`NODE_OPTIONS=--require <this file>`), so the
 * service's code stays as it is: the API's event-loop delay (perf_hooks.monitorEventLoopDelay),
 * its largest value of every half second, appended as one JSON line `{"t": <epoch ms>, "max_ms": n}`
 * to the file named by BENCH_LOOP_DELAY_FILE. The histogram counts its own sampling interval in
 * each value; that interval is taken off, so `max_ms` is how long the loop was held beyond it.
 * Nothing happens in worker threads, or without the variable (it is removed once read, so a
 * process the API starts does not write into the same file).
 */
'use strict';
const { isMainThread } = require('node:worker_threads');

const file = process.env.BENCH_LOOP_DELAY_FILE;
if (isMainThread && file) {
  delete process.env.BENCH_LOOP_DELAY_FILE;
  const fs = require('node:fs');
  const { monitorEventLoopDelay } = require('node:perf_hooks');
  const RESOLUTION_MS = 10;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const fd = fs.openSync(file, 'a');
  const timer = setInterval(() => {
    const maxMs = Math.max(0, histogram.max / 1e6 - RESOLUTION_MS);
    fs.writeSync(fd, `${JSON.stringify({ t: Date.now(), max_ms: Math.round(maxMs * 10) / 10 })}\n`);
    histogram.reset();
  }, 500);
  timer.unref();
}
