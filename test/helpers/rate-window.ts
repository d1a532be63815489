/** The per-key rate limit counts in clock-aligned one-minute windows (api/rate-limiter.ts). */

/** Waits until the next minute when less than `margin` ms of this one remain, so a test stays in one rate-limit window. */
export async function awayFromWindowEnd(margin = 20_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < margin) await new Promise((r) => setTimeout(r, left + 50));
}
