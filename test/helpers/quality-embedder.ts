// A deterministic embedder for the search evaluation (bench/search-quality.ts): hashed
// features of each folded word, signed and summed into a fixed-dimension vector, then normalised.
// Each word gives its whole form and its character n-grams of 3 to 5 (of "#word#", so starts and
// ends count), so a typo, an inflection or a cognate ("invoce", "invoices"; "migration") keeps
// most of its features, and texts with no common stems are near orthogonal. It knows no synonyms
// and no labels: a paraphrase in other words is as far as any unrelated text, as it would be for a
// weak model. Words of one or two characters (mostly function words) weigh little.

export const QUALITY_DIMS = 512
const NGRAMS = [3, 4, 5] as const

function fnv1a(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

function addFeature(v: Float64Array, feature: string, weight: number): void {
  const h = fnv1a(feature)
  v[h % v.length]! += h & 0x80000000 ? -weight : weight
}

/** The vector of `text` (folded words as the search indexes them: `words` of src/search/text.ts). */
export function qualityVector(words: readonly string[], dims = QUALITY_DIMS): Float64Array {
  const v = new Float64Array(dims)
  for (const w of words) {
    if (w.length <= 2) {
      addFeature(v, `w:${w}`, 0.3)
      continue
    }
    addFeature(v, `w:${w}`, 1)
    const padded = `#${w}#`
    for (const n of NGRAMS) {
      const grams = padded.length - n + 1
      if (grams <= 0) continue
      // Each n-gram size weighs one word in all, whatever the word's length.
      const weight = 1 / Math.sqrt(grams)
      for (let i = 0; i < grams; i++) addFeature(v, `${n}:${padded.slice(i, i + n)}`, weight)
    }
  }
  let norm = 0
  for (const x of v) norm += x * x
  norm = Math.sqrt(norm) || 1
  for (let i = 0; i < v.length; i++) v[i]! /= norm
  return v
}
