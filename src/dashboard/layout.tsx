// The parts every dashboard page is made of: the layout (header, navigation, skip link, the one
// stylesheet and script), notices and errors, tables that stack on a phone, selects, pagers,
// copyable text, and how times and counts read. Rendered on the server by preact-render-to-string:
// every value is escaped by the library, never by hand. No inline script or style (the CSP forbids
// both).
import type { ComponentChildren, VNode } from 'preact'
import { renderToString } from 'preact-render-to-string'
import type { User } from '../auth/accounts.js'
import type { Via } from '../shared/fields.js'
import { FAVICON, LIVE_SCRIPT, STYLESHEET } from './assets.js'
import { ago, duration } from './client/words.js'

export interface Viewer {
  user: User
  teamName: string
  operator: boolean
}

export function Layout(props: {
  title: string
  viewer?: Viewer | undefined
  wide?: boolean
  /** What needs the person (needs.tsx): counted in the tab's title, "(3) Room · agentrooms". */
  count?: number
  /** Links after "Skip to the content" to the page's main places (the room page: what needs you). */
  skips?: readonly { href: string; text: string }[]
  children: ComponentChildren
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.count ? `(${num(props.count)}) ` : ''}${props.title} · agentrooms`}</title>
        <link rel="icon" href={FAVICON.path} type="image/svg+xml" />
        <link rel="stylesheet" href={STYLESHEET.path} />
        <script src={LIVE_SCRIPT.path} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to the content
        </a>
        {(props.skips ?? []).map((s) => (
          <a class="skip" href={s.href} key={s.href}>
            {s.text}
          </a>
        ))}
        <header class="top">
          <a class="brand" href="/">
            agentrooms
          </a>
          {props.viewer ? (
            <nav aria-label="Account">
              <a href="/">Rooms</a>
              <a href="/inbox">Inbox</a>
              <a href="/team">Team</a>
              <a href="/team/keys">Keys</a>
              <a href="/team/webhooks">Webhooks</a>
              <span class="muted">{props.viewer.user.email}</span>
              {props.viewer.operator ? <a href="/operator">Operator</a> : null}
              <form class="inline" method="post" action="/signout">
                <button class="link" type="submit">
                  Sign out
                </button>
              </form>
            </nav>
          ) : null}
        </header>
        <main id="main" tabIndex={-1} class={props.wide ? 'wide' : undefined}>
          {props.children}
        </main>
      </body>
    </html>
  )
}

/** A change's outcome on a page: a notice, or an error announced to screen readers. */
export function Flash(props: { notice?: string | undefined; error?: string | undefined }) {
  return (
    <>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      {props.error ? (
        <p class="error" role="alert">
          {props.error}
        </p>
      ) : null}
    </>
  )
}

/**
 * A table whose rows become labelled blocks on a phone (class stack): one header per column,
 * each cell labelled with its column's header (`data-label`, shown by the stylesheet).
 */
export function Table<T>(props: {
  cols: string[]
  rows: readonly T[]
  rowKey: (row: T) => string
  cells: (row: T) => ComponentChildren[]
}) {
  return (
    <table class="stack">
      <thead>
        <tr>
          {props.cols.map((c) => (
            <th scope="col" key={c}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={props.rowKey(row)}>
            {props.cells(row).map((cell, i) => (
              <td key={i} data-label={props.cols[i]}>
                {cell}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** A select of `options` (a value, or [value, label]) with `value` selected. */
export function Select(props: {
  name: string
  options: readonly (string | readonly [string, string])[]
  value: string
}) {
  return (
    <select name={props.name}>
      {props.options.map((o) => {
        const [value, label] = typeof o === 'string' ? [o, o] : o
        return (
          <option key={value} value={value} selected={value === props.value}>
            {label}
          </option>
        )
      })}
    </select>
  )
}

export const page = (node: VNode) => `<!doctype html>${renderToString(node)}`

/** An ISO time as people read it here: `2026-11-25 12:09:57 UTC` (to the minute with `minutes`). */
export const utc = (iso: string | undefined, minutes = false): string =>
  iso ? `${iso.replace('T', ' ').slice(0, minutes ? 16 : 19)} UTC` : '—'

/**
 * The credential a record was written with, as the room page says it beside the agent id:
 * "via key 'ci-bot'", "via room invite key 'alice'", "via agent grant 'Claude Code'", "via Dana's
 * sign-in"; a credential without a label by its id. '' for none (records from before credentials
 * were recorded, the service's own).
 */
export function viaText(via: Via | undefined): string {
  if (via === undefined) return ''
  const named = via.label !== undefined && via.label !== '' ? `'${via.label}'` : via.id
  if (via.kind === 'person') return `via ${via.label || 'a person'}'s sign-in`
  if (via.kind === 'grant') return `via agent grant ${named}`
  return via.kind === 'invite' ? `via room invite key ${named}` : `via key ${named}`
}

/** A count with thousands separated (toLocaleString took 0.7 ms of each room page in a profile). */
export const num = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')

/**
 * Where a page of a long list is, with links to the pages around it: "21–40 of 1,234 · Previous
 * 20 · Next 20". Nothing when everything fits on one page.
 */
export function Pager(props: {
  label: string
  from: number
  shown: number
  total: number
  size: number
  href: (from: number) => string
}) {
  const { from, shown, total, size } = props
  if (total <= size && from === 0) return null
  return (
    <nav class="pager small" aria-label={`Pages of ${props.label}`}>
      <span>
        {shown === 0 ? 'none' : `${num(from + 1)}–${num(from + shown)}`} of {num(total)}
      </span>
      {from > 0 ? (
        <a href={props.href(Math.max(0, from - size))} aria-label={`Previous ${size} in ${props.label}`}>
          {`Previous ${size}`}
        </a>
      ) : null}
      {from + shown < total ? (
        <a href={props.href(from + size)} aria-label={`Next ${Math.min(size, total - from - shown)} in ${props.label}`}>
          {`Next ${Math.min(size, total - from - shown)}`}
        </a>
      ) : null}
    </nav>
  )
}

/** A read-only block of text with its label and a copy button (the button works with the client script). */
/**
 * Panels of which one shows at a time once the page's script runs: it builds the tab list (arrow
 * keys, Home and End move between tabs) and hides the other panels. Without the script every
 * panel shows, each under its own label, so nothing is out of reach.
 */
export function Tabs(props: { id: string; label: string; panels: { title: string; body: ComponentChildren }[] }) {
  return (
    <div class="tabs" data-tabs={props.label}>
      {props.panels.map((p, i) => (
        <div class="tab-panel" key={i} id={`${props.id}-${i}`} data-tab-title={p.title}>
          {p.body}
        </div>
      ))}
    </div>
  )
}

export function Copyable(props: { id: string; label: string; text: string; wrap?: boolean }) {
  const rows = Math.min(12, props.text.split('\n').length + 1)
  return (
    <div class="copyable">
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        class={props.wrap ? 'wrap' : undefined}
        readOnly
        rows={props.wrap ? 3 : rows}
        spellcheck={false}
      >
        {props.text}
      </textarea>
      <button type="button" class="secondary copy" data-copy={props.id} hidden>
        Copy
      </button>
    </div>
  )
}

/**
 * A time as how long ago it was at `now` (by default, when the page is rendered), with the exact
 * time (UTC) on hover; `datetime` holds the ISO time. The words are the one thing in it that
 * changes with the clock: versions and patches of the room page's parts leave them out
 * (patch.ts `timeless`), and the script writes them from `datetime` (client/live.ts).
 */
export function Ago(props: { at: string | undefined; now?: string | undefined }) {
  if (!props.at) return <span>—</span>
  return (
    <time datetime={props.at} title={utc(props.at)} data-ago="">
      {ago(props.at, props.now ?? new Date().toISOString())}
    </time>
  )
}

/**
 * The time left until `until` (an ISO time; `left`: the seconds left when read), counting down on
 * the page, the exact end (UTC) on hover. Its words are left out of versions as Ago's are.
 */
export function TimeLeft(props: { until: string; left: number }) {
  return (
    <time datetime={props.until} title={`until ${utc(props.until)}`} data-left="">
      {props.left <= 0 ? 'expired' : duration(props.left)}
    </time>
  )
}
