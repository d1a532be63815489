/**
 * Progress of long loops: a cli-progress bar on a terminal, otherwise (CI, logs) one line every
 * `every` items and at the end.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  tick(n?: number): void;
  stop(): void;
}

export function progress(
  label: string,
  total: number,
  o: { every?: number; stream?: NodeJS.WriteStream } = {},
): Progress {
  const stream = o.stream ?? process.stdout;
  const started = Date.now();
  let done = 0;
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {value}/{total} {percentage}% | {rate}/s | eta {eta_formatted}`,
        stream,
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rate: '0.0' });
    return {
      tick(n = 1) {
        done += n;
        bar.update(done, { rate: (done / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1) });
      },
      stop() {
        bar.stop();
      },
    };
  }
  const every = o.every ?? Math.max(1, Math.ceil(total / 10));
  let lastLogged = 0;
  const line = () => {
    const s = (Date.now() - started) / 1000;
    stream.write(
      `${label}: ${done}/${total} (${((100 * done) / Math.max(1, total)).toFixed(0)} %, ${(done / Math.max(0.001, s)).toFixed(1)}/s, ${s.toFixed(0)} s)\n`,
    );
    lastLogged = done;
  };
  return {
    tick(n = 1) {
      done += n;
      if (done - lastLogged >= every || done === total) line();
    },
    stop() {
      if (lastLogged !== done) line();
    },
  };
}
