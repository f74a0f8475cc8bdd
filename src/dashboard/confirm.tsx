// Destructive changes in two steps (revoke a key, delete a webhook, remove a member, release a
// lock, …): nothing is taken away by one press. On the page the change is a <details> whose
// summary names it ("Revoke key_ab…"); opening it shows what goes and the one button that sends
// it, named for what goes. That form carries `confirmed=yes`; a post without it (an old page, a
// form of another kind, a crafted request) is answered with a confirmation page that says the
// same and changes nothing (Web.page's `confirm`). Both work without the script and with the
// keyboard alone; the script closes an open confirmation on Escape (client/live.ts).
import type { ComponentChildren } from 'preact'
import { Layout, type Viewer } from './layout.js'

/** What a destructive change takes away, said before it is made. */
export interface Confirmation {
  /** The button that makes the change, naming what goes: "Revoke key_ab12". */
  action: string
  /** What goes with it and what follows, in a sentence or two. */
  goes: string
}

/** The field a confirmed post carries. */
export const CONFIRMED = 'confirmed'

/** Whether a posted form went through the confirmation step. */
export const isConfirmed = (form: URLSearchParams): boolean => form.get(CONFIRMED) === 'yes'

/**
 * The change as a page shows it: a summary naming it, and once opened, what goes and the button.
 * `children` are the form's own fields (hidden inputs); `open` shows it opened (a refused one).
 */
export function Confirm(props: {
  action: string
  confirm: Confirmation
  open?: boolean
  children?: ComponentChildren
}) {
  return (
    <details class="confirm" open={props.open}>
      <summary>{`${props.confirm.action}…`}</summary>
      <form class="stack" method="post" action={props.action}>
        {props.children}
        <input type="hidden" name={CONFIRMED} value="yes" />
        <p class="small">{props.confirm.goes}</p>
        <button class="danger" type="submit">
          {props.confirm.action}
        </button>
      </form>
    </details>
  )
}

/** The confirmation page: the posted form's fields again, with `confirmed=yes`, and a way back. */
export function ConfirmPage(props: {
  viewer: Viewer | undefined
  path: string
  form: URLSearchParams
  confirm: Confirmation
  back: string
}) {
  const fields = [...props.form].filter(([k]) => k !== CONFIRMED)
  return (
    <Layout title="Please confirm" viewer={props.viewer}>
      <h1>{`${props.confirm.action}?`}</h1>
      <p>{props.confirm.goes}</p>
      <form class="stack" method="post" action={props.path}>
        {fields.map(([k, v], i) => (
          <input key={i} type="hidden" name={k} value={v} />
        ))}
        <input type="hidden" name={CONFIRMED} value="yes" />
        <button class="danger" type="submit">
          {props.confirm.action}
        </button>
      </form>
      <p>
        <a href={props.back}>Cancel: keep it and go back</a>
      </p>
    </Layout>
  )
}

/** The confirmations of the dashboard's destructive changes, one wording for the page and its fallback. */
export const CONFIRM = {
  revokeKey: (keyId: string): Confirmation => ({
    action: `Revoke ${keyId}`,
    goes:
      `Agents and scripts using ${keyId} get 401 on every node within a second, and their open streams close. ` +
      'A revoked key cannot be made live again.',
  }),
  revokeInvite: (tokenId: string, roomId: string): Confirmation => ({
    action: `Revoke ${tokenId}`,
    goes:
      `The agent using this invite key of room ${roomId} gets 401 within a second. ` +
      'The room and what the agent wrote stay; "Connect more agents" on the room page mints a new key.',
  }),
  revokeGrant: (agentId: string): Confirmation => ({
    action: `Revoke ${agentId}`,
    goes: `The client signed in as agent ${agentId} loses access at once; to come back it must sign in again.`,
  }),
  deleteWebhook: (webhookId: string, url: string): Confirmation => ({
    action: `Delete ${webhookId}`,
    goes:
      `No more deliveries go to ${url}: pending ones are dropped (one already being sent completes), and its ` +
      'signing secret and delivery history go with it.',
  }),
  removeMember: (email: string, teamName: string): Confirmation => ({
    action: `Remove ${email}`,
    goes:
      `${email} leaves team ${teamName} at once: their sessions end, every key and room invite key they ` +
      'minted is revoked, and every webhook they made is disabled. What they wrote in rooms stays.',
  }),
  revokeMemberInvite: (email: string): Confirmation => ({
    action: `Revoke invite of ${email}`,
    goes: `The link mailed to ${email} stops working; a new invite can be sent later.`,
  }),
  declineWaitlist: (email: string): Confirmation => ({
    action: `Decline ${email}`,
    goes: `${email} is told nothing and gets no sign-in link; they stay listed as declined and can still be approved.`,
  }),
  releaseLock: (name: string, holder: string): Confirmation => ({
    action: `Release ${name}`,
    goes:
      `The lock is freed in place of ${holder}, which may still believe it holds it: another agent can take ` +
      `${name} at once.`,
  }),
} as const
