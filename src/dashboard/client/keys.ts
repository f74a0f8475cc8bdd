/// <reference lib="dom" />
// Keyboard shortcuts. On every page, Escape closes the open <details> step holding the focus (a
// confirmation of confirm.tsx, a form's disclosure) and focuses its summary again; on the room page
// also its open side panel (its Close link). On a page with the list of shortcuts (shortcuts.tsx,
// the room page) `?` opens that list and `/` goes to the search box. `?` and `/` never act while
// the person types in a field; none acts with Ctrl, Alt or Meta held.

/** Whether the keyboard is typing into `el`: a text field, a text area, a select, or editable text. */
function typing(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false
  if (el.isContentEditable || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true
  if (!(el instanceof HTMLInputElement)) return false
  return !['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'image', 'range', 'color'].includes(el.type)
}

/** Closes the innermost open step or panel around the focus, else the open side panel; true if one was. */
function closeOpen(from: EventTarget | null): boolean {
  const d = from instanceof Element ? from.closest('details[open]') : null
  if (d instanceof HTMLDetailsElement) {
    d.open = false
    d.querySelector('summary')?.focus()
    return true
  }
  const close = document.querySelector('.side-panels.open a.close')
  if (close instanceof HTMLAnchorElement) {
    close.click()
    return true
  }
  return false
}

export function shortcuts(): void {
  const found = document.getElementById('shortcuts')
  const dialog = found instanceof HTMLDialogElement ? found : undefined
  const opener = document.getElementById('shortcuts-open')
  if (dialog && opener instanceof HTMLButtonElement) {
    opener.hidden = false
    opener.addEventListener('click', () => dialog.showModal())
  }
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey || e.isComposing) return
    if (e.key === 'Escape') {
      // A modal dialog closes itself on Escape.
      if (dialog?.open) return
      if (closeOpen(e.target)) e.preventDefault()
      return
    }
    if (!dialog || typing(e.target) || dialog.open) return
    if (e.key === '?') {
      e.preventDefault()
      dialog.showModal()
    } else if (e.key === '/') {
      const search = document.querySelector('form.search input[name="q"]')
      if (!(search instanceof HTMLInputElement)) return
      e.preventDefault()
      search.focus()
      search.select()
    }
  })
}
