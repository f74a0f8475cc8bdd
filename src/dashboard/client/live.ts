/// <reference lib="dom" />
// The dashboard's one script (bundled by esbuild, served fingerprinted; bundle.ts). On the room
// page it follows the room's live stream and swaps in the parts a change changed (follow.ts), so
// the page follows the room within a second, without reload. Copy buttons copy their textarea; a
// lock's time left counts down; a form being sent says so. Every page loads this script; only the
// room page follows a stream.
import { follow } from './follow.js'
import { shortcuts } from './keys.js'
import { ago, duration } from './words.js'

/** How long a copy button says "Copied" before it reads "Copy" again. */
const COPIED_MS = 2000

function copyButtons(root: ParentNode): void {
  root.querySelectorAll<HTMLButtonElement>('button[data-copy]').forEach((b) => {
    const area = document.getElementById(b.dataset.copy ?? '') as HTMLTextAreaElement | null
    if (!area || b.dataset.ready) return
    b.dataset.ready = '1'
    b.hidden = false
    let reset: ReturnType<typeof setTimeout> | undefined
    const say = (text: string) => {
      b.textContent = text
      clearTimeout(reset)
      reset = setTimeout(() => (b.textContent = 'Copy'), COPIED_MS)
    }
    b.addEventListener('click', () => {
      void navigator.clipboard.writeText(area.value).then(
        () => say('Copied'),
        () => {
          area.select()
          say('Press Ctrl+C to copy')
        },
      )
    })
  })
}

/** Turns each [data-tabs] group of panels into a tab list showing one panel at a time. */
function tabs(root: ParentNode): void {
  root.querySelectorAll<HTMLElement>('[data-tabs]').forEach((group) => {
    if (group.dataset.ready) return
    group.dataset.ready = '1'
    const panels = Array.from(group.querySelectorAll<HTMLElement>(':scope > .tab-panel'))
    const list = document.createElement('div')
    list.setAttribute('role', 'tablist')
    // Not the server's: a part's patch does not count it (client/patch.ts).
    list.dataset.client = ''
    list.setAttribute('aria-label', group.dataset.tabs ?? '')
    const buttons = panels.map((panel, i) => {
      const b = document.createElement('button')
      b.type = 'button'
      b.id = `${panel.id}-tab`
      b.textContent = panel.dataset.tabTitle ?? String(i + 1)
      b.setAttribute('role', 'tab')
      b.setAttribute('aria-controls', panel.id)
      panel.setAttribute('role', 'tabpanel')
      panel.setAttribute('aria-labelledby', b.id)
      b.addEventListener('click', () => select(i))
      list.append(b)
      return b
    })
    const select = (n: number, focus = false) => {
      buttons.forEach((b, i) => {
        b.setAttribute('aria-selected', String(i === n))
        b.tabIndex = i === n ? 0 : -1
        panels[i]!.hidden = i !== n
      })
      if (focus) buttons[n]!.focus()
    }
    list.addEventListener('keydown', (e) => {
      const at = buttons.indexOf(document.activeElement as HTMLButtonElement)
      if (at < 0) return
      const last = buttons.length - 1
      const to =
        e.key === 'ArrowRight'
          ? at === last
            ? 0
            : at + 1
          : e.key === 'ArrowLeft'
            ? at === 0
              ? last
              : at - 1
            : e.key === 'Home'
              ? 0
              : e.key === 'End'
                ? last
                : undefined
      if (to === undefined) return
      e.preventDefault()
      select(to, true)
    })
    group.prepend(list)
    group.classList.add('tabbed')
    select(0)
  })
}

/**
 * How far the browser's clock is behind the server's (ms), from the server's time a live page was
 * rendered at (`data-now` on its root; other pages count on the browser's clock) and the browser's
 * when the page's first byte came: a lock's end and an event's time are the server's, so "expires
 * in" and "ago" are counted on its clock. Under a second apart the clocks are taken as one: that
 * is within the estimate's error (the page's transit) and the words' rounding.
 */
const skew = (() => {
  const at = Number(document.querySelector<HTMLElement>('[data-now]')?.dataset.now)
  if (!Number.isFinite(at) || at <= 0) return 0
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined
  const arrived = nav && nav.responseStart > 0 ? performance.timeOrigin + nav.responseStart : Date.now()
  const d = at - arrived
  return Math.abs(d) < 1000 ? 0 : d
})()
/** Now on the server's clock (ms). */
const serverNow = () => Date.now() + skew

/** The words of a lock's time left (`time[data-left]`) at `now`, from its end (`datetime`). */
function timeLeft(el: HTMLTimeElement, now: number): void {
  const left = Math.max(0, Math.ceil((Date.parse(el.dateTime) - now) / 1000))
  const text = left === 0 ? 'expired' : duration(left)
  if (el.textContent !== text) el.textContent = text
}

/**
 * Writes the words of the times relative to now from their `datetime`: how long ago
 * (`time[data-ago]`) and the time left (`time[data-left]`). The server renders them too, but
 * leaves them out of the parts' versions and patches (src/dashboard/patch.ts `timeless`): a part
 * the stream patched or sent has them empty until this runs.
 */
function clocks(root: ParentNode): void {
  const now = serverNow()
  root.querySelectorAll<HTMLTimeElement>('time[data-ago]').forEach((el) => {
    const text = ago(el.dateTime, now)
    if (el.textContent !== text) el.textContent = text
  })
  root.querySelectorAll<HTMLTimeElement>('time[data-left]').forEach((el) => timeLeft(el, now))
}

/** Counts down the time left that the page shows (locks) every second. */
function countDown(): void {
  window.setInterval(() => {
    const now = serverNow()
    document.querySelectorAll<HTMLTimeElement>('time[data-left]').forEach((el) => timeLeft(el, now))
  }, 1000)
}

/**
 * A form on its way says so: its button reads "… (sending)" and is busy, and a second press
 * does not send it twice. Reset when the page comes back from the history (back button).
 */
function busyForms(): void {
  document.addEventListener('submit', (e) => {
    const form = e.target as HTMLFormElement
    if (form.dataset.sending) {
      e.preventDefault()
      return
    }
    form.dataset.sending = '1'
    const b = (e as SubmitEvent).submitter
    if (b instanceof HTMLButtonElement) {
      b.dataset.label = b.textContent ?? ''
      b.setAttribute('aria-busy', 'true')
      b.textContent = `${b.dataset.label} (sending…)`
    }
  })
  window.addEventListener('pageshow', () => {
    document.querySelectorAll<HTMLFormElement>('form[data-sending]').forEach((f) => delete f.dataset.sending)
    document.querySelectorAll<HTMLButtonElement>('button[aria-busy]').forEach((b) => {
      b.removeAttribute('aria-busy')
      b.textContent = b.dataset.label ?? b.textContent
    })
  })
}

/** What needs the person on a page: the sum of its "what needs you" blocks' counts (needs.tsx). */
function needsIn(doc: ParentNode): number {
  let n = 0
  doc.querySelectorAll<HTMLElement>('[data-needs]').forEach((el) => (n += Number(el.dataset.needs) || 0))
  return n
}

const NOTIFY_KEY = 'agentrooms.notify'
let needsShown = needsIn(document)

/** Whether the person asked to be notified (and the browser lets us). */
const notifying = (): boolean =>
  'Notification' in window && Notification.permission === 'granted' && localStorage.getItem(NOTIFY_KEY) === '1'

/** A browser notification when more needs the person than before, if they asked for them. */
function needsChanged(n: number): void {
  const more = n > needsShown
  needsShown = n
  if (!more || !notifying()) return
  const note = new Notification(`${n} ${n === 1 ? 'thing needs' : 'things need'} you`, {
    body: document.title,
    tag: 'agentrooms-needs',
  })
  note.onclick = () => {
    window.focus()
    note.close()
  }
}

/**
 * The "Notify me" button (#notify): shown only where the Notification API is; asks the browser's
 * permission only when pressed, and turns notifications off again on a second press.
 */
function notifyButton(): void {
  const b = document.getElementById('notify') as HTMLButtonElement | null
  if (!b || !('Notification' in window)) return
  const label = () => {
    if (Notification.permission === 'denied') {
      b.textContent = 'Notifications are blocked for this site in your browser'
      b.disabled = true
    } else b.textContent = notifying() ? 'Stop notifying me' : 'Notify me when agents need me'
    b.setAttribute('aria-pressed', String(notifying()))
  }
  b.hidden = false
  label()
  b.addEventListener('click', () => {
    if (notifying()) {
      localStorage.removeItem(NOTIFY_KEY)
      label()
      return
    }
    void Notification.requestPermission().then((p) => {
      if (p === 'granted') localStorage.setItem(NOTIFY_KEY, '1')
      label()
    })
  })
}

copyButtons(document)
tabs(document)
countDown()
busyForms()
notifyButton()
const root = document.querySelector<HTMLElement>('[data-live]')
if (root)
  follow(root, {
    swapped: () => {
      copyButtons(document)
      tabs(document)
      clocks(document)
    },
    needs: needsChanged,
  })

/** Keeps "4 min ago" true while the page stays open. */
function tickTimes(): void {
  clocks(document)
  window.setInterval(() => clocks(document), 30_000)
}

/** The element the address points at (#event-…) is shown, even inside a collapsed thread. */
function revealTarget(): void {
  const id = decodeURIComponent(location.hash.slice(1))
  let el = id ? document.getElementById(id) : null
  for (; el; el = el.parentElement) if (el instanceof HTMLDetailsElement) el.open = true
}

tickTimes()
revealTarget()
window.addEventListener('hashchange', revealTarget)

shortcuts()
