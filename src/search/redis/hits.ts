// A ranked document as an answer shows it: the record's fields, where the snippet comes from, the
// snippet with the matched words marked, and the score.
import { roundScore, type SearchHit } from '../engine.js'
import { FIELD_WEIGHTS, FIELDS, LONG_FIELDS, type Answer, type Field, type Hit, type IndexDoc } from '../lexical.js'
import type { HitBase } from '../records.js'
import { snippet } from '../text.js'

/** Where a snippet comes from, by preference: a long field that matched, then a short one. */
const SNIPPET_ORDER: Field[] = [
  ...LONG_FIELDS,
  ...(Object.keys(FIELD_WEIGHTS) as Field[])
    .filter((f) => !LONG_FIELDS.includes(f))
    .sort((a, b) => FIELD_WEIGHTS[b] - FIELD_WEIGHTS[a]),
]

/** A ranked document as an answer shows it; `fields` is the bit mask of the fields that matched. */
export function hitOf(doc: IndexDoc<HitBase>, score: number, fields: number, matched: ReadonlySet<string>): SearchHit {
  const field =
    SNIPPET_ORDER.find((f) => fields & (1 << FIELDS.indexOf(f)) && doc.fields[f]) ??
    SNIPPET_ORDER.find((f) => doc.fields[f]) ??
    'title'
  return { ...doc.meta, field, snippet: snippet(doc.fields[field] ?? '', matched), score: roundScore(score) }
}

/**
 * The query words a hit matched, when it matched some but not all of them (a hit without them has
 * every word, or was found by its meaning alone): what an agent needs to tell a partial match.
 */
export function partialWords(
  hit: Pick<Hit<HitBase>, 'words'>,
  answer: Pick<Answer<HitBase>, 'terms'>,
): string[] | undefined {
  const all = (1 << answer.terms.length) - 1
  if (hit.words === 0 || hit.words === all) return undefined
  return answer.terms.filter((_, i) => hit.words & (1 << i))
}
