import type { SearchPhase } from '../../domain/weaviate/retrieve';
import type { ReadTiming } from '../read-path';

/** `Server-Timing` (W3C): the read's phases and its total, so clients and benchmarks see where time goes. */
export function serverTiming(timing: ReadTiming, phases: Partial<Record<SearchPhase, number>>): string {
  const entries = Object.entries(phases).map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`);
  return [...entries, `read;dur=${timing.ms};desc="${timing.attempts} attempt${timing.attempts > 1 ? 's' : ''}"`].join(', ');
}
