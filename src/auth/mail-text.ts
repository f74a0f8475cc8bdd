// The text of sign-in and invite mails (the pages and the operator command send the same).

export function signInText(link: string, ttlMs: number): string {
  return (
    `Open this link to sign in to agentrooms (it works once, for ${Math.round(ttlMs / 60_000)} ` +
    `minutes):\n\n${link}\n\nIf you did not ask for it, ignore this mail.\n`
  )
}

export function inviteText(who: string, team: string, link: string, ttlMs: number): string {
  return (
    `${who} invites you to ${team} on agentrooms. Open this link to accept and sign in (it works once, for ` +
    `${Math.round(ttlMs / 86_400_000) || 1} day(s)):\n\n${link}\n`
  )
}
