/**
 * Text from tenants' data, made safe to print on an operator's terminal. Questions, answers,
 * feedback, imported records and model names are written by whoever calls the API or fills an
 * import file: printed as they are, an escape sequence in them could set the window title, clear
 * the screen, move the cursor over earlier lines or, on some terminals, answer back as typed input.
 */

import { BIDI_CONTROLS } from './bidi';

/**
 * C0 controls (newline and tab included), DEL, C1 controls (U+0080–U+009F), and the bidirectional
 * formatting characters (domain/text/bidi.ts), which would reorder what the terminal shows.
 */
const CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f]|${BIDI_CONTROLS.source}`, 'g');
/** DEL, C1 controls and the bidirectional formatting characters: JSON.stringify leaves them as they are (it escapes C0 only). */
const CONTROL_LEFT_BY_JSON = new RegExp(`[\\u007f-\\u009f]|${BIDI_CONTROLS.source}`, 'g');

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');
const hex4 = (c: string) => c.charCodeAt(0).toString(16).padStart(4, '0');
/** A control as a visible escape: `\n`, `\x1b`, `\x9b`, or `\u202e` above U+00FF. */
const escaped = (c: string) => SHORT[c] ?? (c.charCodeAt(0) > 0xff ? `\\u${hex4(c)}` : `\\x${hex(c)}`);

/**
 * One field for a terminal: every control character becomes a visible escape (`\n`, `\r`, `\t`,
 * `\x1b`, `\x9b`, `\u202e`), so the field stays on its line and nothing in it reaches the terminal as a
 * control. Other text, backslashes included, is unchanged. Layout (the newlines between fields)
 * is the caller's, added around escaped fields.
 */
export function terminalText(text: string): string {
  return text.replace(CONTROL, escaped);
}

/**
 * A value as one line of JSON for a terminal: JSON.stringify, with DEL, the C1 controls and the
 * bidirectional formatting characters written as `\u` escapes too. The line parses to the same value.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(CONTROL_LEFT_BY_JSON, (c) => `\\u${hex4(c)}`);
}
