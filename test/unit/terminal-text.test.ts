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
