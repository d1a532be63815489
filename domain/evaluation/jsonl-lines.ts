/**
 * The lines of an import file (JSONL), streamed. A line longer than `maxBytes` is reported by its
 * length and never held: its bytes are counted as they pass and dropped, so a 100 MB line costs
 * the reader its one 64 KiB read buffer, not 100 MB. Used by the worker (domain/evaluation/batch.ts) and
 * by `npm run eval:import`'s check of the file.
 */
import fs from 'node:fs';

export type JsonlLine =
  /** `text` without its line end (`\n` or `\r\n`). */
  | { line: number; text: string }
  /** A line of more than `maxBytes` bytes, skipped unread. */
  | { line: number; tooLong: true; bytes: number };

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
/** Bytes read at once, into the one buffer a reader reuses. */
const READ_BYTES = 64 * 1024;

/**
 * The lines of `path` from byte `start` (a line start) to byte `end` (exclusive; default the end
 * of the file), numbered from `firstLine`. A last line without a newline counts; nothing after a
 * final newline does. The file is read into one reused buffer: only the lines kept are copied.
 */
export async function* readJsonlLines(o: {
  path: string;
  maxBytes: number;
  start?: number;
  end?: number;
  firstLine?: number;
}): AsyncGenerator<JsonlLine> {
  let position = o.start ?? 0;
  let line = o.firstLine ?? 1;
  let parts: Buffer[] = [];
  let bytes = 0;
  const finish = (): JsonlLine => {
    const ended: JsonlLine = bytes > o.maxBytes ? { line, tooLong: true, bytes } : { line, text: decode(parts) };
    parts = [];
    bytes = 0;
    line += 1;
    return ended;
  };
  const handle = await fs.promises.open(o.path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    for (;;) {
      const want = o.end === undefined ? buffer.length : Math.min(buffer.length, o.end - position);
      if (want <= 0) break;
      const { bytesRead } = await handle.read(buffer, 0, want, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      for (let at = 0; at < bytesRead;) {
        const newline = buffer.indexOf(NEWLINE, at);
        const to = newline === -1 || newline >= bytesRead ? bytesRead : newline;
        bytes += to - at;
        // Past the limit the line's bytes are only counted: what was kept is let go.
        if (bytes > o.maxBytes) parts = [];
        else if (to > at) parts.push(Buffer.from(buffer.subarray(at, to)));
        if (to === bytesRead) break;
        yield finish();
        at = to + 1;
      }
    }
  } finally {
    await handle.close();
  }
  if (bytes > 0) yield finish();
}

/** A line's bytes as text, without the `\r` of a `\r\n` line end. */
function decode(parts: Buffer[]): string {
  const whole = parts.length === 1 ? parts[0] : Buffer.concat(parts);
  const end = whole.length > 0 && whole[whole.length - 1] === CARRIAGE_RETURN ? whole.length - 1 : whole.length;
  return whole.toString('utf8', 0, end);
}
