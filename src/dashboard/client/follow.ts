/// <reference lib="dom" />
// The room page following its live stream (/live, same origin, the session cookie authenticates):
// each frame names the parts of the page a change changed (src/dashboard/live-parts.ts), and only
// those are fetched again (GET /room/part with the page's own parameters, every part asked within
// one animation frame in one request) and swapped in. A new event of the feed comes rendered in its
// frame (`item`), and goes in at the top of the feed without a fetch when the page shows the latest
// events unfiltered. A part is never replaced while the person is in it: while it holds the
// keyboard focus or a form field that differs from what the server sent (typed in, ticked), it is
// marked stale (`data-stale`) and fetched again once the focus has left it and nothing typed is
// left in it. Open <details> stay open, and the part at the top of the window stays where it was.
// The whole page is read again only when a frame names no parts (a gap in the stream), or a part
// the page does not hold yet (e.g. what needs the person, which shows only when something does).
// A part that changed comes as a patch (`v`) against the version the page holds (`data-v`) when
// the page shows it as the stream's own rendering does; any other page, or a patch that does not
// fit, fetches the part.
// The stream is opened with the versions of the parts the page shows (`?v=`), and says which of
// them changed meanwhile. EventSource resumes after the last event id it saw; the status line
// says "Reconnecting…" while the stream is down, and stops when the session has ended.
import { readBy } from './words.js'

import { applyPatch, type Op } from './patch.js'

const RETRY_MS = 1000
/** Frames arriving within this long (and the same animation frame) make one fetch. */
const COALESCE_MS = 50

/**
 * What a frame of the room's stream says (src/dashboard/live-room.ts): the parts to fetch, parts
 * rendered already, the new feed item rendered, read positions that moved.
 */
interface Frame {
  parts?: string[]
  html?: Record<string, string>
  item?: string
  reads?: Record<string, string>
  /** Parts' new versions by `data-part`: [the version patched from, the new one, its operations]. */
  v?: Record<string, [string, string, Op[]?]>
}

const seqOf = (id: string): number => Number(id.slice(id.indexOf('-') + 1))

/** An agent has read up to event `id`: each event of the feed up to it, not its own, says so. */
function readUpTo(agent: string, id: string): void {
  const upTo = seqOf(id)
  document.querySelectorAll<HTMLElement>('li[data-event]').forEach((li) => {
    if (li.dataset.author === agent || seqOf(li.dataset.event ?? '') > upTo) return
    const line = li.querySelector<HTMLElement>(':scope > [data-readers]')
    if (!line) return
    const readers = (line.dataset.readers ?? '').split(' ').filter((a) => a !== '')
    if (readers.includes(agent)) return
    readers.push(agent)
    line.dataset.readers = readers.join(' ')
    line.textContent = readBy(readers)
  })
}

/** What the page does around a swap: copy buttons and tabs in new parts; the count that needs the person. */
export interface FollowHooks {
  /** Called after new parts went in (wire their buttons). */
  swapped(): void
  /** The count of what needs the person, after the part that shows it changed. */
  needs(n: number): void
}

/** The part name GET /room/part knows for a `data-part` value: `needs-<roomId>` is `needs`. */
const partName = (dataPart: string): string => (dataPart.startsWith('needs-') ? 'needs' : dataPart)

/** The page's element of a `data-part` value. */
const partEl = (dataPart: string): HTMLElement | null =>
  document.querySelector<HTMLElement>(`[data-part="${CSS.escape(dataPart)}"]`)

/** A form field that differs from what the server sent: typed in, ticked, chosen. */
function dirty(el: Element): boolean {
  if (el instanceof HTMLTextAreaElement) return el.value !== el.defaultValue
  if (el instanceof HTMLSelectElement) return Array.from(el.options).some((o) => o.selected !== o.defaultSelected)
  if (el instanceof HTMLInputElement) {
    if (el.type === 'checkbox' || el.type === 'radio') return el.checked !== el.defaultChecked
    if (el.type === 'hidden' || el.type === 'file' || el.type === 'submit' || el.type === 'button') return false
    return el.value !== el.defaultValue
  }
  return false
}

/** The person is in `part`: it holds the focus, or a field they changed. */
export function busy(part: Element): boolean {
  const a = document.activeElement
  if (a && a !== document.body && part.contains(a)) return true
  return Array.from(part.querySelectorAll('input, textarea, select')).some(dirty)
}

/** Opens in `next` the <details> that are open in `prev`, matched by their summary's text. */
function keepOpen(prev: Element, next: Element): void {
  const open = new Set(Array.from(prev.querySelectorAll('details[open] > summary')).map((s) => s.textContent))
  next.querySelectorAll('details > summary').forEach((s) => {
    if (open.has(s.textContent)) s.parentElement?.setAttribute('open', '')
  })
}

/**
 * Runs `change` keeping what the person looks at in place: the first feed item or part whose
 * bottom is in the window keeps its distance to the window's top (nothing moves at the very top).
 */
function anchored(change: () => void): void {
  if (window.scrollY === 0) return change()
  const candidates = Array.from(document.querySelectorAll<HTMLElement>('#feed > li[data-event], [data-part]'))
  const anchor = candidates.find(
    (el) => el.getBoundingClientRect().bottom > 0 && !el.contains(document.getElementById('feed')),
  )
  const key = anchor?.dataset.event ? `#event-${CSS.escape(anchor.dataset.event)}` : anchor?.dataset.part
  const top = anchor?.getBoundingClientRect().top
  change()
  if (key === undefined || top === undefined) return
  const now = key.startsWith('#') ? document.querySelector(key) : partEl(key)
  const moved = now ? now.getBoundingClientRect().top - top : 0
  if (moved !== 0) window.scrollBy(0, moved)
}

/** The page shows the latest events, unfiltered: a new top-level event goes first in its feed. */
function showsLatest(): boolean {
  const q = new URLSearchParams(location.search)
  return !['before', 'type', 'agent', 'open'].some((k) => q.has(k))
}

const parse = (html: string): Document => new DOMParser().parseFromString(html, 'text/html')

/** Follows the stream named by `root` (`data-live`, `data-last-event`), swapping parts as frames say. */
export function follow(root: HTMLElement, hooks: FollowHooks): void {
  const status = document.getElementById('live-status')
  const say = (state: string, text: string) => {
    if (!status) return
    status.dataset.state = state
    status.textContent = text
  }
  const wanted = new Set<string>()
  /** The `data-part` values of parts left stale because the person is in them. */
  const stale = new Set<string>()
  let whole = false
  let timer: number | undefined
  let reading = false
  let again = false

  /** Puts `next` (a part as the server renders it) in place of the page's, unless the person is in it. */
  const swap = (next: HTMLElement): boolean => {
    const name = next.dataset.part ?? ''
    const prev = partEl(name)
    if (!prev) return false
    if (prev.innerHTML === next.innerHTML) return true
    if (busy(prev)) {
      stale.add(name)
      prev.dataset.stale = ''
      return true
    }
    stale.delete(name)
    keepOpen(prev, next)
    prev.replaceWith(document.importNode(next, true))
    return true
  }

  const retitle = () => {
    let n = 0
    document.querySelectorAll<HTMLElement>('[data-needs]').forEach((el) => (n += Number(el.dataset.needs) || 0))
    const name = document.title.replace(/^\([\d,]+\) /, '')
    document.title = n > 0 ? `(${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}) ${name}` : name
    hooks.needs(n)
  }

  const read = async (): Promise<void> => {
    if (reading) {
      again = true
      return
    }
    reading = true
    const all = whole
    const parts = [...wanted]
    whole = false
    wanted.clear()
    try {
      let url: string
      if (all) url = location.pathname + location.search
      else {
        const q = new URLSearchParams(location.search)
        for (const p of parts) q.append('part', p)
        url = `/room/part?${q.toString()}`
      }
      const res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      if (!res.ok) throw new Error(String(res.status))
      const doc = parse(await res.text())
      let missing = false
      anchored(() => {
        doc.querySelectorAll<HTMLElement>('[data-part]').forEach((next) => {
          if (!swap(next)) missing = true
        })
      })
      // A part the page lacks (it shows only when it has something): the whole page places it.
      if (missing && !all) whole = true
      hooks.swapped()
      retitle()
      root.dataset.updated = String(Date.now())
    } catch {
      say('reconnecting', 'Reconnecting…')
    } finally {
      reading = false
      if (again || whole || wanted.size > 0) {
        again = false
        soon()
      }
    }
  }

  /** One fetch for whatever is wanted, at the next animation frame after COALESCE_MS. */
  const soon = () => {
    if (timer !== undefined) return
    timer = window.setTimeout(() => {
      window.requestAnimationFrame(() => {
        timer = undefined
        if (whole || wanted.size > 0) void read()
      })
    }, COALESCE_MS)
  }

  const want = (parts: readonly string[] | undefined) => {
    if (parts === undefined) whole = true
    else for (const p of parts) wanted.add(p)
    soon()
  }

  /** A new event: its item first in the feed when the page shows the latest events, else its parts fetched. */
  const event = (frame: Frame, id: string) => {
    const parts = frame.parts ?? []
    const feed = document.getElementById('feed')
    const events = partEl('events')
    if (frame.item && feed && events && showsLatest() && !document.getElementById(`event-${id}`)) {
      const li = parse(frame.item).body.firstElementChild
      if (li) {
        anchored(() => feed.prepend(document.importNode(li, true)))
        hooks.swapped()
        want(parts.filter((p) => p !== 'events'))
        return
      }
    }
    want(frame.parts)
  }

  /** Other changes: parts rendered go in as they are, read positions move, the rest is fetched. */
  const changed = (frame: Frame) => {
    const html = Object.entries(frame.html ?? {})
    if (html.length > 0)
      anchored(() => {
        for (const [, part] of html) {
          const next = parse(part).body.firstElementChild
          if (next instanceof HTMLElement) swap(next)
        }
      })
    for (const [agent, id] of Object.entries(frame.reads ?? {})) readUpTo(agent, id)
    const patched = Object.entries(frame.v ?? {})
    if (patched.length > 0) {
      const fetch: string[] = []
      anchored(() => {
        for (const [name, [from, to, ops]] of patched) {
          const el = partEl(name)
          if (el?.dataset.v === to) continue
          if (!el || el.dataset.v !== from || !ops || stale.has(name) || busy(el) || !applyPatch(el, ops)) {
            fetch.push(partName(name))
            continue
          }
          el.dataset.v = to
        }
      })
      hooks.swapped()
      retitle()
      if (fetch.length > 0) want(fetch)
    }
    if (frame.parts === undefined && (html.length > 0 || frame.reads || patched.length > 0)) return
    want(frame.parts)
  }

  // A stale part is fetched again once the person has left it (focus moved, text cleared or sent).
  const recheck = () =>
    window.setTimeout(() => {
      for (const name of stale) {
        const el = partEl(name)
        if (!el) stale.delete(name)
        else if (!busy(el)) want([partName(name)])
      }
    }, 0)
  for (const type of ['focusout', 'input', 'change', 'reset']) document.addEventListener(type, recheck)

  const seen = new Set<string>()
  const url = new URL(root.dataset.live!, location.href)
  if (root.dataset.lastEvent) url.searchParams.set('lastEventId', root.dataset.lastEvent)
  const frameOf = (e: Event): Frame => {
    try {
      return JSON.parse(String((e as MessageEvent).data)) as Frame
    } catch {
      return {}
    }
  }
  // The versions of the parts the page shows: the stream sends whatever changed since.
  const held = () =>
    Array.from(document.querySelectorAll<HTMLElement>('[data-v][data-part]'))
      .map((el) => `${el.dataset.part!}:${el.dataset.v!}`)
      .join(',')
  const connect = (): void => {
    url.searchParams.set('v', held())
    const es = new EventSource(url.toString())
    es.onopen = () => say('live', 'Live')
    // Reconnected by hand, never by EventSource's own retry: that would reuse this URL, whose `v`
    // names the versions held when it was opened, so a part patched since and changed back would
    // be taken as current and never sent again.
    es.onerror = () => {
      say('reconnecting', 'Reconnecting…')
      es.close()
      window.setTimeout(connect, RETRY_MS)
    }
    es.addEventListener('room-event', (e) => {
      const id = (e as MessageEvent).lastEventId
      if (seen.has(id)) return
      seen.add(id)
      url.searchParams.set('lastEventId', id)
      event(frameOf(e), id)
    })
    es.addEventListener('changed', (e) => changed(frameOf(e)))
    es.addEventListener('gap', () => want(undefined))
    // The session ended (signed out elsewhere, expired, account deleted): no reconnecting.
    es.addEventListener('signed-out', () => {
      es.close()
      say('signed-out', 'Signed out: reload the page to sign in again')
    })
  }
  connect()
}
