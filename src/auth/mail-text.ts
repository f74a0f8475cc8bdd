// The sign-in, approval and invite mails (the pages and the operator command send the same): each
// as plain text and as HTML (one paragraph per line of the text, the link as a button), so a mail
// client shows whichever it prefers. The HTML is rendered by preact-render-to-string, which
// escapes every value (a team name or an address is never markup).
import { h } from 'preact'
import { renderToString } from 'preact-render-to-string'

export interface MailBody {
  text: string
  html: string
}

/** A lifetime as people read it: "15 minutes", "1 hour", "7 days". */
export function lifetime(ms: number): string {
  const unit = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`
  if (ms >= 86_400_000 && ms % 86_400_000 === 0) return unit(ms / 86_400_000, 'day')
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return unit(ms / 3_600_000, 'hour')
  return unit(Math.max(1, Math.round(ms / 60_000)), 'minute')
}

/** A mail of paragraphs around one link: `before` the link, the link's button text, `after` it. */
function mail(before: string[], link: string, button: string, after: string[]): MailBody {
  const text = [...before, link, ...after].join('\n\n') + '\n'
  const p = (s: string) => h('p', { style: 'margin:0 0 16px' }, s)
  const body = h(
    'html',
    { lang: 'en' },
    h('head', null, h('meta', { charset: 'utf-8' }), h('title', null, before[0] ?? 'agentrooms')),
    h(
      'body',
      { style: 'font-family:system-ui,sans-serif;font-size:16px;line-height:1.5;color:#1a1a1a;max-width:560px' },
      ...before.map(p),
      h(
        'p',
        { style: 'margin:0 0 16px' },
        h(
          'a',
          {
            href: link,
            style:
              'display:inline-block;padding:10px 18px;background:#1f5fbf;color:#ffffff;' +
              'text-decoration:none;border-radius:6px',
          },
          button,
        ),
      ),
      h('p', { style: 'margin:0 0 16px;font-size:13px;color:#555' }, 'Or paste this address into your browser: ', link),
      ...after.map(p),
    ),
  )
  return { text, html: `<!doctype html>${renderToString(body)}` }
}

/** The mail of a sign-in link someone just asked for on `/signin`. */
export function signInMail(link: string, ttlMs: number, base: string): MailBody {
  return mail(
    [`Open this link to sign in to agentrooms. It works once, within ${lifetime(ttlMs)}.`],
    link,
    'Sign in to agentrooms',
    [
      `If it has expired, ${base}/signin sends you a new one.`,
      'If you did not ask to sign in, you can ignore this mail: nobody signs in without opening the link.',
    ],
  )
}

/** The mail to someone whose place on the waitlist an operator approved (perhaps days after they asked). */
export function approvalMail(link: string, ttlMs: number, base: string): MailBody {
  return mail(
    [
      'Your request to join agentrooms is approved: you are in.',
      `This link signs you in and sets up your team. It works once, within ${lifetime(ttlMs)} of this mail.`,
    ],
    link,
    'Sign in to agentrooms',
    [`Later, or once the link has expired, ${base}/signin sends you a fresh link to this address at any time.`],
  )
}

/** The mail of an invite to a team (or, from an operator, to a new team of one's own). */
export function inviteMail(who: string, team: string, link: string, ttlMs: number, base: string): MailBody {
  return mail(
    [
      `${who} invites you to ${team} on agentrooms.`,
      `Open this link to accept and sign in. It works once, within ${lifetime(ttlMs)}.`,
    ],
    link,
    'Accept the invite',
    [`Once you have accepted, ${base}/signin sends you a sign-in link whenever you need one.`],
  )
}
