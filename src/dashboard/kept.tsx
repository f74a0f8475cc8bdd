// A form the service refused, shown again as the person left it: open, with what they typed, and
// the message in plain words at the field it is about (or at the top of the form when it is about
// no one field), that field focused. The room model's messages name fields as agents know them
// ("title: ...", "or pass force"); a person sees the form's own words.
import type { ComponentChildren } from 'preact'
import type { z } from 'zod'
import type { AppError } from '../shared/errors.js'
import { parse } from '../shared/validate.js'

export interface Kept {
  /** Which form of the page was refused (e.g. `review:r1`, `task:t3`, `post`). */
  form: string
  values: URLSearchParams
  /** The form field the message is about, if any. */
  field: string | undefined
  message: string
}

/**
 * The fields of a form that `schema` names, parsed by it (src/shared/validate.ts): the API's and
 * the room model's schemas hold a form to the same limits and messages. A text field not sent
 * reads as empty. Throws an AppError naming the form's field, which `keep` shows at that field.
 */
export function fromForm<S extends z.ZodObject>(schema: S, form: URLSearchParams): z.output<S> {
  const input: Record<string, string> = {}
  for (const name of Object.keys(schema.shape)) {
    const value = form.get(name)
    if (value !== null) input[name] = value
    else if (!schema.shape[name]!.safeParse(undefined).success) input[name] = ''
  }
  return parse(schema, input)
}

/** What `form` of the page keeps, when it is the one refused. */
export const keptOf = (kept: Kept | undefined, form: string): Kept | undefined =>
  kept?.form === form ? kept : undefined

/** The value typed into `name`, else `fallback`. */
export const typed = (kept: Kept | undefined, name: string, fallback = ''): string => kept?.values.get(name) ?? fallback

/** The attributes of an input `name` of a form: invalid, described by its message, and focused, when refused. */
export function fieldAttrs(kept: Kept | undefined, name: string, id: string) {
  return kept?.field === name ? { 'aria-invalid': true, 'aria-describedby': `${id}-error`, autoFocus: true } : {}
}

/** The message under an input `name`, when it is the field refused. */
export function FieldError(props: { kept: Kept | undefined; name: string; id: string }) {
  if (props.kept?.field !== props.name) return null
  return (
    <p class="error field" id={`${props.id}-error`} role="alert">
      {props.kept.message}
    </p>
  )
}

/**
 * A labelled, required text input of a form that keeps its refusals: what was typed, and the
 * message under it when it is the field refused.
 */
export function KeptInput(props: {
  kept: Kept | undefined
  name: string
  /** The id its message takes (`<id>-error`), unique on the page. */
  id: string
  label: ComponentChildren
  /** Its value when the form was not refused. */
  value?: string | undefined
  maxLength?: number
}) {
  return (
    <>
      <label>
        {props.label}
        <input
          type="text"
          name={props.name}
          required
          {...(props.maxLength !== undefined ? { maxLength: props.maxLength } : {})}
          value={typed(props.kept, props.name, props.value ?? '')}
          {...fieldAttrs(props.kept, props.name, props.id)}
        />
      </label>
      <FieldError kept={props.kept} name={props.name} id={props.id} />
    </>
  )
}

/** The message at the top of a refused form whose field is none of `fields`. */
export function FormError(props: { kept: Kept | undefined; fields: readonly string[] }) {
  const k = props.kept
  if (!k || (k.field !== undefined && props.fields.includes(k.field))) return null
  return (
    <p class="error" role="alert">
      {k.message}
    </p>
  )
}

/** Fields agents know by another name than the form's. */
const FORM_FIELDS: Record<string, string> = { event_id: 'reply_to', agents: 'agents' }

const PLAIN: [RegExp, string][] = [
  [/;? ?or pass force\b/g, ', or tick “Even if another agent holds it or it is blocked”'],
  [
    / needs force \(the holder is told\)/g,
    ' needs “Even if another agent holds it or it is blocked” (the holder is told)',
  ],
]

/** A refusal as the form shows it: the field it names, and the message without the field's API name. */
export function keep(form: string, values: URLSearchParams, err: AppError): Kept {
  const raw = typeof err.details?.field === 'string' ? err.details.field : undefined
  const field = raw === undefined ? undefined : (FORM_FIELDS[raw] ?? raw)
  let message = err.message.replace(/^[a-z_]+(\.[a-z_0-9]+)*: /, '')
  for (const [re, to] of PLAIN) message = message.replace(re, to)
  message = message.charAt(0).toUpperCase() + message.slice(1)
  return { form, values, field: field !== undefined && values.has(field) ? field : undefined, message }
}
