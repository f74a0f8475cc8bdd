// The dashboard pages' part of the stylesheet (rooms, room, team), appended to the sign-in
// pages' one in assets.ts: one fingerprinted stylesheet for every page.
export const DASHBOARD_CSS = `
main.wide { max-width: 80rem; }
a.skip { position: absolute; left: .5rem; top: -3rem; background: var(--card); padding: .5rem .75rem;
  border: 1px solid var(--accent); border-radius: .4rem; z-index: 1; }
a.skip:focus { top: .5rem; }
main:focus { outline: none; }
select { width: 100%; font: inherit; font-weight: 400; padding: .55rem .6rem; border: 1px solid var(--line);
  border-radius: .4rem; background: var(--card); color: var(--fg); }
select:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
label.check { display: flex; gap: .5rem; align-items: flex-start; font-weight: 400; }
label.check input { margin-top: .3rem; width: 1.1rem; height: 1.1rem; }
.small { font-size: .85rem; }
.scroll { overflow-x: auto; }
code { font-family: ui-monospace, monospace; font-size: .92em; }
.copyable { display: grid; gap: .35rem; margin: .9rem 0; }
.copyable textarea { font-family: ui-monospace, monospace; font-size: .85rem; min-height: 0; white-space: pre;
  overflow-x: auto; }
.copyable textarea.wrap { white-space: pre-wrap; }
.copyable button.copy { justify-self: start; }
section.agent { border-top: 1px solid var(--line); margin-top: 1.5rem; }
.board { display: grid; gap: .75rem; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); align-items: start; }
.column { background: var(--card); border: 1px solid var(--line); border-radius: .5rem; padding: .5rem .6rem; }
.column h3 { font-size: 1rem; margin: .2rem 0 .5rem; }
.card { border: 1px solid var(--line); border-radius: .4rem; padding: .45rem .55rem; margin: .45rem 0;
  background: var(--bg); }
.card .title { font-weight: 600; overflow-wrap: anywhere; }
.tag { display: inline-block; font-size: .8rem; padding: 0 .4rem; border-radius: .3rem; border: 1px solid var(--line); }
.tag.urgent, .tag.high { border-color: var(--bad); color: var(--bad); }
.tag.blocked { border-color: var(--bad); color: var(--bad); }
.grid2 { display: grid; gap: 1rem 2rem; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); }
ol.feed { list-style: none; padding: 0; margin: 0; }
ol.feed li { border-bottom: 1px solid var(--line); padding: .45rem 0; }
ol.feed ol.feed { margin-left: 1.2rem; border-left: 3px solid var(--line); padding-left: .6rem; }
ol.feed li:last-child { border-bottom: none; }
.event-text { white-space: pre-wrap; overflow-wrap: anywhere; margin: .15rem 0; }
pre.body { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--card); border: 1px solid var(--line);
  border-radius: .4rem; padding: .6rem; font-size: .85rem; max-height: 24rem; overflow-y: auto; }
pre.diff { white-space: pre-wrap; font-size: .85rem; background: var(--card); border: 1px solid var(--line);
  border-radius: .4rem; padding: .6rem; }
pre.diff .add { color: var(--ok); } pre.diff .del { color: var(--bad); }
details > summary { cursor: pointer; padding: .3rem 0; }
summary:focus-visible, pre:focus-visible, select:focus-visible { outline: 3px solid var(--accent);
  outline-offset: 2px; }
svg.chart { max-width: 100%; height: auto; }
svg.chart rect { fill: var(--accent); } svg.chart text { fill: var(--muted); font-size: 10px; }
.live { font-size: .9rem; }
.live { border: 1px solid var(--line); border-radius: 1rem; padding: .1rem .7rem; }
.live[data-state=live] { border-color: var(--ok); color: var(--ok); }
.live[data-state=reconnecting], .live[data-state=signed-out] { border-color: var(--bad); color: var(--bad);
  font-weight: 600; }
form.search { display: flex; gap: .5rem; flex-wrap: wrap; align-items: end; margin: .5rem 0; }
form.search label { flex: 1 1 14rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.crumbs { margin: 0; }
.room-head { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: baseline; justify-content: space-between; }
.room-head h1 { margin-bottom: .25rem; overflow-wrap: anywhere; }
.room-head .live { margin: 0; }
nav.sections { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: .5rem 0; }
nav.sections a, nav.pager a { padding: .35rem 0; }
.room-grid { display: grid; gap: 0 2rem; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 60rem) { .room-grid { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); } }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: .5rem; padding: .5rem .9rem;
  margin: .75rem 0; }
.panel h3 { margin: .4rem 0; overflow-wrap: anywhere; }
nav.pager { display: flex; flex-wrap: wrap; gap: .25rem .9rem; align-items: baseline; margin: .4rem 0; }
.card a.title { display: block; font-weight: 600; color: var(--fg); text-decoration: none; overflow-wrap: anywhere;
  padding: .1rem 0; }
.card a.title:hover { text-decoration: underline; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .2rem 1rem; margin: .5rem 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.dot { display: inline-block; width: .6rem; height: .6rem; border-radius: 50%; border: 1px solid var(--muted); }
.dot.on { background: var(--ok); border-color: var(--ok); }
ul.agents, ul.reviews { list-style: none; padding-left: 0; }
ul.reviews > li { border-bottom: 1px solid var(--line); padding: .5rem 0; }
.buttons { display: flex; flex-wrap: wrap; gap: .5rem; }
ol.feed li.question { border-left: 3px solid var(--accent); padding-left: .6rem; }
.tag.pending { border-color: var(--accent); color: var(--accent); }
.tag.approved { border-color: var(--ok); color: var(--ok); }
.tag.rejected { border-color: var(--bad); color: var(--bad); }
details.post { margin: .5rem 0 1rem; }
details.post > summary { display: inline-block; font-weight: 600; color: var(--accent); padding: .5rem 0; }
@media (max-width: 40rem) {
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack tr { border-bottom: 1px solid var(--line); padding: .4rem 0; }
  table.stack td { border: none; padding: .15rem 0 .15rem 8rem; position: relative; min-height: 1.6rem; }
  table.stack td[data-label]::before { content: attr(data-label); position: absolute; left: 0; width: 7.5rem;
    color: var(--muted); font-size: .85rem; padding-top: .1rem; }
}
`
