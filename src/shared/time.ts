// Times as the service hands them out: ISO-8601 in UTC, from the epoch milliseconds Redis stores.

/** An epoch-ms value (a number, or its string as Redis returns it) as ISO-8601, e.g. "2026-11-22T08:38:18.268Z". */
export const iso = (ms: unknown): string => new Date(Number(ms)).toISOString()
