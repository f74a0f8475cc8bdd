// Times as the service hands them out: ISO-8601 in UTC, from the epoch milliseconds Redis stores.

/** An epoch-ms value (a number, or its string as Redis returns it) as ISO-8601, e.g. "2026-11-22T08:38:18.268Z". */
export const iso = (ms: unknown): string => new Date(Number(ms)).toISOString()

/** `rec` with every `*_at` epoch-ms field turned into an ISO string, in place. */
export function withIsoTimes<T extends Record<string, unknown>>(rec: T): T {
  for (const [k, v] of Object.entries(rec)) {
    if (k.endsWith('_at') && typeof v === 'number') (rec as Record<string, unknown>)[k] = iso(v)
  }
  return rec
}
