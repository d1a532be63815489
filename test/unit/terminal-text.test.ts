import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { terminalJson, terminalText } from '../../domain/text/terminal-text';

/** Any C0 control, DEL or C1 control: what must never reach a terminal from stored text. */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('terminal text (operator commands)', () => {
  it('writes every C0 control, DEL and C1 control as a visible escape', () => {
    assert.equal(terminalText('x \u001b]0;pwned\u0007\u001b[2J'), 'x \\x1b]0;pwned\\x07\\x1b[2J');
    assert.equal(terminalText('a\nb\r\tc\u0000\u007f\u0085\u009b1m'), 'a\\nb\\r\\tc\\x00\\x7f\\x85\\x9b1m');
    const every = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('');
    assert.doesNotMatch(terminalText(every), RAW_CONTROL);
  });

  it('writes bidirectional formatting characters as visible escapes, in text and in JSON', () => {
    const disguised = 'invoice\u202eexe.pdf \u2066x\u2069 \u200e\u200f\u061c \u202a\u202b\u202c\u202d \u2067\u2068';
    const text = terminalText(disguised);
    assert.equal(text.slice(0, 20), 'invoice\\u202eexe.pdf');
    assert.doesNotMatch(text, /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    const line = terminalJson({ name: disguised });
    assert.doesNotMatch(line, /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    assert.deepEqual(JSON.parse(line), { name: disguised });
  });

  it('leaves other text as it is', () => {
    const text = 'Zürich naïve 日本 😀 \\x1b \u00a0 ¡ back\\slash';
    assert.equal(terminalText(text), text);
  });

  it('writes JSON on one line with DEL and C1 escaped too, parsing to the same value', () => {
    const value = { q: 'x \u001b[2J\u0007', c1: '\u0085\u009b31m\u007f', n: 1, list: ['\n'] };
    const line = terminalJson(value);
    assert.doesNotMatch(line, RAW_CONTROL);
    assert.match(line, /\\u009b31m\\u007f/);
    assert.deepEqual(JSON.parse(line), value);
  });
});
