// The words the pages write and the client script keeps true while a page stays open: how long
// ago something was, a lock's time left, who has read an event. The server's components and the
// script both import them from here; this module imports nothing, so the script's bundle holds
// none of the server's code.

/**
 * How long ago `iso` was at `now` (an ISO time or ms since the epoch), as people say it: "just
 * now", "4 min ago", "3 h ago", "yesterday", "5 days ago", then the date.
 */
export function ago(iso: string, now: string | number): string {
  const s = Math.floor(((typeof now === 'number' ? now : Date.parse(now)) - Date.parse(iso)) / 1000)
  if (s < 60) return 'just now'
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`
  const days = Math.floor(s / 86400)
  if (days === 1) return 'yesterday'
  if (days < 7) return `${days} days ago`
  return iso.slice(0, 10)
}

/** Seconds as people read a lock's time left: "45 s", "4 min 12 s", "2 h 5 min". */
export function duration(s: number): string {
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

/** Readers named per event; more are counted. */
export const READERS_SHOWN = 8

/** Who has read an event, as the feed says it: "not read yet", "read by a, b", "read by … and 3 more". */
export function readBy(agents: string[]): string {
  if (agents.length === 0) return 'not read yet'
  const named = agents.slice(0, READERS_SHOWN).join(', ')
  return agents.length > READERS_SHOWN
    ? `read by ${named} and ${agents.length - READERS_SHOWN} more`
    : `read by ${named}`
}
