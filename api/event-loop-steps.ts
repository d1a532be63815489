/**
 * A large request body is worked through in steps (reading its text, parsing, checking it, each
 * upload item's checks, the batches), and the event loop serves other requests between them: no
 * one step over 10 MB takes the loop for long, where all of them at once did (issue 33: an upload
 * of 9.4 MB blocked the API for 0.8 s). Small bodies go through at once.
 */

/** Bodies of at least this many bytes are worked through in steps. */
export const STEPPED_BODY_BYTES = 256 * 1024;

/** Lets the event loop run what is waiting (I/O, timers) before the caller goes on. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Whether the request's body (its size as read, `ctx.state.bodyBytes`) is worked through in steps. */
export const stepped = (state: { bodyBytes?: number }): boolean => (state.bodyBytes ?? 0) >= STEPPED_BODY_BYTES;
