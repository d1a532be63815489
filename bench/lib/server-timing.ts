/**
 * The `Server-Timing` response header (W3C Server Timing): `name;dur=12.3;desc="x", name2;dur=4`.
 * The latency benchmark averages its entries per phase when the API sends it. Pure functions,
 * unit-tested in test/unit/bench-latency.test.ts.
 */

export interface ServerTimingEntry {
  name: string;
  /** Milliseconds; absent when the entry has no `dur`. */
  dur?: number;
  desc?: string;
}

/** Splits on `sep` outside double-quoted strings. */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    if (ch === '\\' && quoted && i + 1 < text.length) {
      current += ch + text[++i];
      continue;
    }
    if (ch === sep && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

const unquote = (v: string) =>
  v.startsWith('"') && v.endsWith('"') && v.length >= 2 ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v;

/** The entries of one header value; malformed entries (no name) are skipped, a bad `dur` is dropped. */
export function parseServerTiming(header: string | null | undefined): ServerTimingEntry[] {
  if (!header) return [];
  const entries: ServerTimingEntry[] = [];
  for (const raw of splitOutsideQuotes(header, ',')) {
    const [namePart, ...params] = splitOutsideQuotes(raw, ';').map((p) => p.trim());
    if (!namePart) continue;
    const entry: ServerTimingEntry = { name: namePart };
    for (const param of params) {
      const eq = param.indexOf('=');
      const key = (eq < 0 ? param : param.slice(0, eq)).trim().toLowerCase();
      const value = eq < 0 ? '' : unquote(param.slice(eq + 1).trim());
      if (key === 'dur' && entry.dur === undefined) {
        const n = Number(value);
        if (value !== '' && Number.isFinite(n)) entry.dur = n;
      } else if (key === 'desc' && entry.desc === undefined) entry.desc = value;
    }
    entries.push(entry);
  }
  return entries;
}

export interface PhaseAverage {
  /** Responses whose header had this entry with a duration. */
  samples: number;
  mean_ms: number;
}

/**
 * Mean duration per entry name over several responses' headers, in first-seen order. An entry that
 * appears twice in one header counts as the sum of both for that response.
 */
export function averageServerTiming(headers: readonly (string | null | undefined)[]): Record<string, PhaseAverage> {
  const sums = new Map<string, { total: number; samples: number }>();
  for (const header of headers) {
    const perResponse = new Map<string, number>();
    for (const e of parseServerTiming(header))
      if (e.dur !== undefined) perResponse.set(e.name, (perResponse.get(e.name) ?? 0) + e.dur);
    for (const [name, dur] of perResponse) {
      const s = sums.get(name) ?? { total: 0, samples: 0 };
      s.total += dur;
      s.samples += 1;
      sums.set(name, s);
    }
  }
  const out: Record<string, PhaseAverage> = {};
  for (const [name, s] of sums)
    out[name] = { samples: s.samples, mean_ms: Math.round((s.total / s.samples) * 100) / 100 };
  return out;
}
