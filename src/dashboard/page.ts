// What a dashboard page module is made of: the request its handler gets, the reply it gives and
// the helpers that build replies, and how a signed-in person is named in an audit entry and in a
// room. Web (web.ts) mounts the pages on the node's HTTP edge; account-pages.ts, pages.ts and the
// modules it registers add them.
import type { VNode } from 'preact'
import type { User } from '../auth/accounts.js'
import type { Exchange } from '../http/exchange.js'
import { AppError, RoomNotFound } from '../shared/errors.js'
import { seal, unseal } from './flash.js'
import type { Viewer } from './views.js'

export interface Request {
  ex: Exchange
  form: URLSearchParams
  viewer: Viewer | undefined
  session: string | undefined
}

export type Headers = Record<string, string | readonly string[]>
/** `streamed`: the handler has answered itself (a stream); nothing more is sent. */
/**
 * `stamp`: the room page's parts in `body` carry their version (`data-v`: patch.ts stampParts); a
 * function gets each part's rendering too.
 */
export type Reply = {
  status: number
  body?: VNode
  headers?: Headers
  streamed?: boolean
  stamp?: boolean | ((parts: Map<string, string>) => void)
  /** HTML rendered already, sent instead of `body`. */
  raw?: string
}
export type Handler = (r: Request) => Promise<Reply>

export const see = (location: string, headers: Headers = {}): Reply => ({
  status: 303,
  headers: { Location: location, ...headers },
})
export const html = (body: VNode, status = 200, headers: Headers = {}): Reply => ({ status, body, headers })

/**
 * A domain error in the dashboard's words, for a person: a missing room says what may have
 * happened and where to look (the room page's `id` named it).
 */
export function inPageWords(err: AppError, viewer: Viewer | undefined): AppError {
  if (!(err instanceof RoomNotFound)) return err
  const team = viewer ? ` in team ${viewer.teamName}` : ''
  return new AppError(
    'not_found',
    `There is no room "${err.roomId}"${team}. A room is removed after a long time without activity ` +
      `(30 days by default); your rooms page lists every room there is.`,
    { field: 'id' },
  )
}

/** A refusal the person can act on (a 4xx other than rate limiting): pages show its message and change nothing. */
export function refusal(err: unknown): AppError | undefined {
  return err instanceof AppError && err.status < 500 && err.code !== 'rate_limited' ? err : undefined
}

/**
 * Runs a page's change, then Post/Redirect/Get: on success a redirect (303) to `path`, which
 * `done` gives what the change returned (sealed for this session: flash.ts), so a reload shows
 * the outcome again and never repeats the change. A refusal shows the page (`show`) with its
 * message and status, changing nothing; anything else throws.
 */
export async function changePage<V extends { error?: string }>(
  r: Request,
  path: string,
  run: () => Promise<Partial<V>>,
  show: (extra: Partial<V>, status: number) => Promise<Reply>,
): Promise<Reply> {
  let extra: Partial<V>
  try {
    extra = await run()
  } catch (err) {
    const refused = refusal(err)
    if (refused) return show({ error: refused.message } as Partial<V>, refused.status)
    throw err
  }
  return seeDone(r, path, extra)
}

/** A redirect to `path` (which may carry a query) with `value` sealed for it: `done` reads it there. */
export function seeDone(r: Request, path: string, value: unknown, headers: Headers = {}): Reply {
  const bare = path.split('?')[0]!
  if (!r.session) return see(path, headers)
  const sep = path.includes('?') ? '&' : '?'
  return see(`${path}${sep}done=${seal(r.session, bare, value)}`, headers)
}

/** What the change that redirected here sealed for this page (nothing when absent, expired or another session's). */
export function done<V>(r: Request, path: string): Partial<V> {
  const v = unseal(r.session, path, r.ex.req.query.get('done'))
  return v !== null && typeof v === 'object' ? (v as Partial<V>) : {}
}

export const actorOf = (u: User) => `user:${u.id} ${u.email}`

/** The agent id a signed-in person acts as in a room: `human:<name>`, which agents can tell apart. */
export function humanId(name: string, email: string): string {
  // eslint-disable-next-line no-control-regex -- agent ids refuse control characters
  const who = (name.trim() || email.split('@')[0] || email).replace(/[\u0000-\u001f\u007f]/g, '')
  return `human:${who}`.slice(0, 128)
}
