/**
 * Bidirectional formatting characters: the embeddings and overrides (U+202A–U+202E), the isolates
 * (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C). Invisible, they reorder the text around
 * them when it is displayed: `moc.evil` can show as `live.com`, a link's title can read backwards.
 * Text the service writes out of tenants' data (answers, operator tools) drops or escapes them.
 */

/** Every bidirectional formatting character (a class of single characters: linear). */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The text without its bidirectional formatting characters. */
export const withoutBidiControls = (text: string): string => text.replace(BIDI_CONTROLS, '');

/** A URL with its bidirectional formatting characters percent-encoded: the same address, shown as it reads. */
export const bidiSafeUrl = (url: string): string => url.replace(BIDI_CONTROLS, encodeURIComponent);
