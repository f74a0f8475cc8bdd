// The dashboard's static assets, served by every node under fingerprinted names (the hash of the
// content is in the name, so they are cached for a year and a change is a new name). No CDN, no
// inline style or script: the pages' CSP allows only 'self'.
import { createHash } from 'node:crypto'
import { liveScript } from './client-bundle.js'
import { DASHBOARD_CSS } from './style.js'

const CSS =
  `
:root { color-scheme: light dark; --fg: #16181d; --bg: #fbfbfc; --muted: #5b616e; --line: #d5d8de;
  --accent: #1f5fd1; --bad: #b42318; --ok: #0a7a3b; --card: #fff; --on-accent: #fff; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaee; --bg: #14161a; --muted: #a4aab5; --line: #343943;
  --accent: #7fa8ff; --bad: #ff8a80; --ok: #5fd08f; --card: #1b1e23; --on-accent: #0b1220; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between;
  padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
header.top a.brand { font-weight: 700; color: var(--fg); text-decoration: none; }
header.top nav { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
main { max-width: 44rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
a { color: var(--accent); }
p.muted, .muted { color: var(--muted); }
form.stack { display: grid; gap: .75rem; margin: 1rem 0; }
form.inline { display: inline; margin: 0; }
label { font-weight: 600; display: grid; gap: .25rem; }
input[type=email], input[type=text], input[type=search], textarea { width: 100%; font: inherit; font-weight: 400;
  padding: .6rem .7rem; border: 1px solid var(--line); border-radius: .4rem; background: var(--card);
  color: var(--fg); }
textarea { min-height: 5rem; }
input:focus-visible, textarea:focus-visible, button:focus-visible, a:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px; }
button { font: inherit; font-weight: 600; padding: .6rem 1rem; border-radius: .4rem;
  border: 1px solid var(--accent); background: var(--accent); color: var(--on-accent); cursor: pointer;
  min-height: 2.75rem; }
button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
button.link { background: none; border: none; color: var(--accent); padding: 0; min-height: 0; font-weight: 400;
  text-decoration: underline; }
.error { border-left: 4px solid var(--bad); padding: .5rem .75rem; background: var(--card); }
.notice { border-left: 4px solid var(--ok); padding: .5rem .75rem; background: var(--card); }
.secret { font-family: ui-monospace, monospace; word-break: break-all; padding: .75rem;
  border: 1px dashed var(--line); border-radius: .4rem; background: var(--card); user-select: all; }
table { width: 100%; border-collapse: collapse; font-size: .95rem; }
th, td { text-align: left; padding: .4rem .75rem .4rem 0; border-bottom: 1px solid var(--line); vertical-align: top;
  overflow-wrap: anywhere; }
th { overflow-wrap: normal; white-space: nowrap; }
ul.plain { padding-left: 1.1rem; }
` + DASHBOARD_CSS

export interface Asset {
  path: string
  type: string
  body: string
}

function fingerprinted(name: string, ext: string, type: string, body: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12)
  return { path: `/assets/${name}.${hash}.${ext}`, type, body }
}

export const STYLESHEET = fingerprinted('app', 'css', 'text/css; charset=utf-8', CSS)
/**
 * The pages' one script: live updates of the room page, copy buttons, lock countdowns, forms that
 * say they are sending (client/live.ts).
 */
export const LIVE_SCRIPT = fingerprinted('live', 'js', 'text/javascript; charset=utf-8', liveScript())
export const ASSETS: readonly Asset[] = [STYLESHEET, LIVE_SCRIPT]
