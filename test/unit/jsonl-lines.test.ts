import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'mocha';
import { readJsonlLines, type JsonlLine } from '../../domain/evaluation/jsonl-lines';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonl-lines-'));
let n = 0;
function file(content: string | Buffer): string {
  const p = path.join(dir, `f${n++}.jsonl`);
  fs.writeFileSync(p, content);
  return p;
}

async function read(o: Parameters<typeof readJsonlLines>[0]): Promise<JsonlLine[]> {
  const lines: JsonlLine[] = [];
  for await (const line of readJsonlLines(o)) lines.push(line);
  return lines;
}

describe('JSONL lines (import files)', () => {
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('numbers the lines, drops \\r of \\r\\n, keeps blank lines and a last line without newline', async () => {
    const p = file('{"a":1}\r\n\n{"b":"ü"}\n{"c":3}');
    assert.deepEqual(await read({ path: p, maxBytes: 100 }), [
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '' },
      { line: 3, text: '{"b":"ü"}' },
      { line: 4, text: '{"c":3}' },
    ]);
    assert.deepEqual(await read({ path: file('x\n'), maxBytes: 100 }), [{ line: 1, text: 'x' }]);
    assert.deepEqual(await read({ path: file(''), maxBytes: 100 }), []);
  });

  it('reports a line longer than the limit by its byte length, and reads on after it', async () => {
    const p = file(`short\n${'é'.repeat(40)}\nok\n`);
    assert.deepEqual(await read({ path: p, maxBytes: 79 }), [
      { line: 1, text: 'short' },
      { line: 2, tooLong: true, bytes: 80 },
      { line: 3, text: 'ok' },
    ]);
    assert.deepEqual((await read({ path: p, maxBytes: 80 }))[1], { line: 2, text: 'é'.repeat(40) });
  });

  it('reads a byte range, numbering from its first line', async () => {
    const p = file('one\ntwo\nthree\nfour\n');
    assert.deepEqual(await read({ path: p, maxBytes: 100, start: 4, end: 14, firstLine: 2 }), [
      { line: 2, text: 'two' },
      { line: 3, text: 'three' },
    ]);
    assert.deepEqual(await read({ path: p, maxBytes: 100, start: 4, end: 4 }), []);
  });

  it('keeps a line split over many read buffers whole, multi-byte characters included', async () => {
    const long = '日本語'.repeat(100_000);
    const p = file(`${long}\n`);
    assert.deepEqual(await read({ path: p, maxBytes: 1_000_000 }), [{ line: 1, text: long }]);
    assert.deepEqual(await read({ path: p, maxBytes: 899_999 }), [{ line: 1, tooLong: true, bytes: 900_000 }]);
  });

  it('never reads past what the last read returned (the buffer is reused)', async () => {
    // 64 KiB of short lines fill the first read; the second returns 4 bytes and no newline.
    const lines = await read({ path: file(`${'x\n'.repeat(32_768)}tail`), maxBytes: 100 });
    assert.equal(lines.length, 32_769);
    assert.deepEqual(lines[lines.length - 1], { line: 32_769, text: 'tail' });
  });
});
