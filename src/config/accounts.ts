// People and keys: the public address, operators, mail, dashboard sessions, sign-in links and their
// rate limits, invites, the waitlist, OAuth/OIDC sign-in, and how long revoked keys stay listed.
// Rows of the settings table (src/config.ts); read by src/auth and src/dashboard.
import { z } from 'zod'
import { int, seconds, type Row } from './row.js'

export const ACCOUNT_SETTINGS = {
  revokedKeyRetentionMs: {
    env: 'REVOKED_KEY_RETENTION_S',
    schema: seconds(0, 3650 * 86400, 30 * 86400),
    unit: 's',
    doc:
      'How long a revoked team key or room invite stays in GET /admin/keys and the invite lists (as revoked) ' +
      'before it is deleted; 0 deletes it at once.',
  },
  publicUrl: {
    env: 'PUBLIC_URL',
    schema: z
      .string()
      .url()
      .refine(
        (v) => /^https:\/\//.test(v) || /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?\/?$/.test(v),
        'must be an https URL (plain http only for localhost)',
      )
      .optional(),
    unit: 'URL',
    doc:
      'The address people reach the service at, e.g. https://rooms.example.com: links in mails and OAuth ' +
      'callbacks point here, and browser requests must come from its origin. https everywhere but localhost ' +
      '(session cookies are then __Host- and Secure). Unset: http://localhost:PORT (development).',
  },
  adminEmails: {
    env: 'ADMIN_EMAILS',
    schema: z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((e) => e.trim().toLowerCase())
          .filter(Boolean),
      )
      .refine((list) => list.every((e) => /^[^\s@]+@[^\s@]+$/.test(e)), 'must be comma-separated e-mail addresses'),
    unit: 'address list',
    doc:
      'Operators: may always sign in, open the waitlist page, and approve or decline entries. The first is the ' +
      "default team's owner, who gets the one-time sign-in link at first start (unset: owner@localhost).",
  },
  smtpUrl: {
    env: 'SMTP_URL',
    schema: z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
    unit: 'URL',
    doc:
      'Where sign-in and invite mails are sent (nodemailer), e.g. smtps://user:pass@smtp.example.com:465. ' +
      'Unset: in development (PUBLIC_URL on localhost) mails are written to the log instead, and a start-up ' +
      'line says so; elsewhere a node refuses to start.',
  },
  mailFrom: {
    env: 'MAIL_FROM',
    schema: z.string().min(3).default('agentrooms <no-reply@localhost>'),
    unit: 'address',
    doc: 'The From of sign-in and invite mails.',
  },
  sessionIdleMs: {
    env: 'SESSION_IDLE_S',
    schema: seconds(60, 90 * 86400, 7 * 86400),
    unit: 's',
    doc: 'A dashboard session not used for this long ends.',
  },
  sessionMaxMs: {
    env: 'SESSION_MAX_S',
    schema: seconds(60, 365 * 86400, 30 * 86400),
    unit: 's',
    doc: 'A dashboard session ends this long after sign-in, however much it is used.',
  },
  signInLinkTtlMs: {
    env: 'SIGNIN_LINK_TTL_S',
    schema: seconds(60, 86400, 900),
    unit: 's',
    doc: 'How long a sign-in link (e-mail, waitlist approval, first start) stays valid. Single use.',
  },
  inviteTtlMs: {
    env: 'INVITE_TTL_S',
    schema: seconds(300, 30 * 86400, 7 * 86400),
    unit: 's',
    doc: 'How long a member invite link stays valid. Single use.',
  },
  signInRatePerAddress: {
    env: 'SIGNIN_RATE_PER_ADDRESS',
    schema: int(1, 1000, 5),
    unit: 'requests/hour',
    doc:
      'Mails one e-mail address may be sent per hour: sign-in links, waitlist approvals and invites, and ' +
      'waitlist requests for it; more are refused (429) and nothing is sent.',
  },
  mailRatePerTeam: {
    env: 'MAIL_RATE_PER_TEAM',
    schema: int(1, 100_000, 50),
    unit: 'mails/hour',
    doc: "Invite mails one team's people may send per hour, to any addresses; more are refused (429).",
  },
  signInRatePerIp: {
    env: 'SIGNIN_RATE_PER_IP',
    schema: int(1, 100_000, 30),
    unit: 'requests/hour',
    doc: 'Sign-in, waitlist and link requests one client IP address may send per hour; more are refused (429).',
  },
  oauthRegistrationsPerIp: {
    env: 'OAUTH_REGISTRATIONS_PER_IP',
    schema: int(1, 100_000, 60),
    unit: 'registrations/hour',
    doc:
      'OAuth client registrations (POST /oauth/register) one client IP address (an IPv6 one by its /64) may ' +
      'make per hour; more are refused (429). Each registration is a stored record, made without credentials.',
  },
  limitPendingInvites: {
    env: 'LIMIT_PENDING_INVITES',
    schema: int(1, 10_000, 50),
    unit: 'invites',
    doc: 'Pending member invites a team may have.',
  },
  limitWaitlist: {
    env: 'LIMIT_WAITLIST',
    schema: int(1, 10_000_000, 100_000),
    unit: 'entries',
    doc: 'Entries the waitlist may hold; past it, new requests are refused (the page says the waitlist is full).',
  },
  authLinkByEmail: {
    env: 'AUTH_LINK_BY_EMAIL',
    schema: z
      .string()
      .default('github')
      .transform((v) =>
        v
          .split(',')
          .map((p) => p.trim().toLowerCase())
          .filter(Boolean),
      )
      .refine((list) => list.every((p) => p === 'github' || p === 'oidc'), 'must be a list of github and oidc'),
    unit: 'provider list',
    doc:
      'Sign-in providers whose verified e-mail address may link a new sign-in to the account with that address ' +
      "(an operator's included) or admit it as a new team's owner: github, oidc, both, or none (empty). A provider " +
      'not listed signs in only an identity linked before, which a signed-in person links by signing in with it ' +
      "once. List oidc only when OIDC_ISSUER verifies addresses for every account it issues (a company's own " +
      "directory); GitHub's verified primary address is trusted by default.",
  },
  oidcIssuer: {
    env: 'OIDC_ISSUER',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc:
      'An OpenID Connect provider (Google https://accounts.google.com, Okta, Keycloak, …) people may sign in ' +
      'with; found by discovery, with PKCE, state and nonce. Callback: PUBLIC_URL/auth/oidc/callback. Needs ' +
      'OIDC_CLIENT_ID and OIDC_CLIENT_SECRET.',
  },
  oidcClientId: {
    env: 'OIDC_CLIENT_ID',
    schema: z.string().min(1).optional(),
    unit: 'string',
    doc: 'The client id registered at OIDC_ISSUER.',
  },
  oidcClientSecret: {
    env: 'OIDC_CLIENT_SECRET',
    schema: z.string().min(1).optional(),
    unit: 'secret',
    doc: 'The client secret registered at OIDC_ISSUER.',
  },
  oidcName: {
    env: 'OIDC_NAME',
    schema: z.string().min(1).max(40).default('single sign-on'),
    unit: 'string',
    doc: 'How the sign-in page names the OIDC provider ("Sign in with …").',
  },
  githubClientId: {
    env: 'GITHUB_CLIENT_ID',
    schema: z.string().min(1).optional(),
    unit: 'string',
    doc:
      'A GitHub OAuth app people may sign in with (scope user:email). Callback: ' +
      'PUBLIC_URL/auth/github/callback. Needs GITHUB_CLIENT_SECRET.',
  },
  githubClientSecret: {
    env: 'GITHUB_CLIENT_SECRET',
    schema: z.string().min(1).optional(),
    unit: 'secret',
    doc: "The GitHub OAuth app's client secret.",
  },
  githubUrl: {
    env: 'GITHUB_URL',
    schema: z.string().url().default('https://github.com'),
    unit: 'URL',
    doc: "GitHub's web address (GitHub Enterprise Server: your server).",
  },
  githubApiUrl: {
    env: 'GITHUB_API_URL',
    schema: z.string().url().default('https://api.github.com'),
    unit: 'URL',
    doc: "GitHub's API address (GitHub Enterprise Server: https://HOST/api/v3).",
  },
} as const satisfies Record<string, Row>
