/** Results that a CPU thread hands back without copying their buffers. */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { isMainThread } from 'node:worker_threads';

/**
 * `value` with the buffers of `views` moved to the calling thread instead of copied (piscina's
 * Transferable interface): piscina unwraps it, so the caller receives `value` itself. Run in the
 * main thread (a task called inline), it is `value` as it is.
 */
export function moved<T extends object>(value: T, views: ArrayBufferView[]): T {
  if (isMainThread) return value;
  return move({ [transferableSymbol]: views.map((v) => v.buffer), [valueSymbol]: value }) as unknown as T;
}
