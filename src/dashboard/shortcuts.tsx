// The room page's keyboard shortcuts, listed in a dialog the `?` key opens (client/keys.ts runs
// them). Without the script there are no shortcuts, so the button that opens the list stays
// hidden; the dialog is a native <dialog>, closed until opened, so Escape closes it too.

/** Each shortcut: its key as shown, and what it does. */
export const SHORTCUTS: readonly (readonly [string, string])[] = [
  ['?', 'Show this list of shortcuts'],
  ['/', 'Go to the search box (then Tab reaches the feed filter)'],
  ['Esc', 'Close the open panel, step or dialog'],
]

/** The button that opens the list (shown by the script), and the dialog itself. */
export function ShortcutsHelp() {
  return (
    <>
      <p class="small shortcuts-open">
        <button type="button" class="secondary" id="shortcuts-open" aria-haspopup="dialog" hidden>
          Keyboard shortcuts (?)
        </button>
      </p>
      <dialog id="shortcuts" aria-labelledby="shortcuts-h">
        <h2 id="shortcuts-h">Keyboard shortcuts</h2>
        <p class="small muted">None of them acts while you type in a field.</p>
        <dl class="shortcuts">
          {SHORTCUTS.map(([key, what]) => (
            <div key={key}>
              <dt>
                <kbd>{key}</kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
        <form method="dialog">
          <button type="submit">Close</button>
        </form>
      </dialog>
    </>
  )
}
