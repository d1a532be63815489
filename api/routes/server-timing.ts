import type { SearchPhase } from '../../domain/timings';
import type { ReadTiming } from '../read-path';

/** `Server-Timing` (W3C): the read's phases and its total, so clients and benchmarks see where time goes. */
export function serverTiming(timing: ReadTiming, phases: Partial<Record<SearchPhase, number>>): string {
  return [
    phaseTimings(phases),
    `read;dur=${timing.ms};desc="${timing.attempts} attempt${timing.attempts > 1 ? 's' : ''}"`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** The `name;dur=ms` entries of the phases that were measured. */
export function phaseTimings(phases: Record<string, number | undefined>): string {
  return Object.entries(phases)
    .filter((e): e is [string, number] => typeof e[1] === 'number')
    .map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`)
    .join(', ');
}
