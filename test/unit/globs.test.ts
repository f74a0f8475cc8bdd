// File globs (src/shared/globs.ts): the cases people write, malformed patterns, and, with
// fast-check, overlap and matching held to a brute-force matcher written here from the language's
// definition (docs/agents.md): every generated pair of globs that the brute force finds a common
// path for over all short paths must overlap, and every overlap's witness must be a well-formed
// path that both globs match by the brute force.
import fc from 'fast-check'
import t from 'tap'
import { GlobError, matches, overlap, parseGlob } from '../../src/shared/globs.js'
import { pinFuzzSeed } from '../helpers/fuzz.js'

pinFuzzSeed(t)

/** One segment's characters against one pattern segment, by backtracking. */
function segMatch(p: string, s: string): boolean {
  if (p === '') return s === ''
  const c = p[0]!
  if (c === '*') {
    for (let k = 0; k <= s.length; k++) if (segMatch(p.slice(1), s.slice(k))) return true
    return false
  }
  if (s === '') return false
  if (c === '?') return segMatch(p.slice(1), s.slice(1))
  if (c === '\\') return p[1] === s[0] && segMatch(p.slice(2), s.slice(1))
  if (c === '[') {
    let i = 1
    const neg = p[i] === '!' || p[i] === '^'
    if (neg) i++
    let hit = false
    let first = true
    while (first || p[i] !== ']') {
      first = false
      const lo = p[i]!
      let hi = lo
      if (p[i + 1] === '-' && p[i + 2] !== ']') {
        hi = p[i + 2]!
        i += 2
      }
      if (s[0]! >= lo && s[0]! <= hi) hit = true
      i++
    }
    return hit !== neg && segMatch(p.slice(i + 1), s.slice(1))
  }
  return c === s[0] && segMatch(p.slice(1), s.slice(1))
}

/** A path against a glob, segment by segment; `**` takes any number of segments (at least one when last). */
function bruteMatch(pattern: string, path: string): boolean {
  const go = (ps: string[], ss: string[]): boolean => {
    if (ps.length === 0) return ss.length === 0
    if (ps[0] === '**') {
      const min = ps.length === 1 ? 1 : 0
      for (let k = min; k <= ss.length; k++) if (go(ps.slice(1), ss.slice(k))) return true
      return false
    }
    return ss.length > 0 && segMatch(ps[0]!, ss[0]!) && go(ps.slice(1), ss.slice(1))
  }
  return go(pattern.split('/'), path.split('/'))
}

const wellFormed = (p: string) => p !== '' && p.split('/').every((s) => s !== '')

/** Every well-formed path over {a, b, c, /} of at most `max` characters. */
function allPaths(max: number): string[] {
  const out: string[] = []
  const grow = (p: string) => {
    if (wellFormed(p)) out.push(p)
    if (p.length === max) return
    for (const c of ['a', 'b', 'c', '/']) grow(p + c)
  }
  grow('')
  return out
}

t.test('the cases people write', async (t) => {
  const o = (a: string, b: string) => overlap(parseGlob(a), parseGlob(b))
  t.ok(o('src/**', 'src/api/users/model.ts'))
  t.equal(o('*.md', 'docs/a.md'), null, '* stays within a segment')
  t.equal(o('**/*.md', 'docs/a.md'), 'docs/a.md')
  t.equal(o('README.md', 'README.md'), 'README.md')
  t.equal(o('src/[a-c]*.ts', 'src/d1.ts'), null)
  t.ok(o('src/[a-c]*.ts', 'src/b1.ts'))
  t.equal(o('src/[!a-c]*.ts', 'src/b1.ts'), null)
  t.ok(o('src/[^a-c]*.ts', 'src/*.ts'))
  t.ok(o('a/**/b', 'a/b'), '** in the middle takes no segment too')
  t.ok(o('a/**/b/*.ts', '**/c/**/b/x.ts'))
  t.equal(o('src/**', 'src'), null, 'src/** is what is under src, not src itself')
  t.equal(o('src/**', 'lib/**'), null)
  t.ok(o('*a*', '*b*'))
  t.equal(o('*.ts', '*.md'), null)
  t.ok(o('**', 'x/y/z.js'))
  const w = o('src/*/model.ts', 'src/api/**')
  t.equal(w, 'src/api/model.ts', 'the witness is a shortest common path')
  t.ok(matches(parseGlob('src/**'), 'src/a/b.ts'))
  t.ok(matches(parseGlob('a/**/b'), 'a/b'))
  t.notOk(matches(parseGlob('*.md'), 'docs/a.md'))
  t.ok(matches(parseGlob('docs/\\*.md'), 'docs/*.md'))
  t.notOk(matches(parseGlob('docs/\\*.md'), 'docs/a.md'))
  t.ok(matches(parseGlob('src/**/*.test.ts'), 'src/x.test.ts'))
  t.ok(matches(parseGlob('*'), '.env'), 'dot files are matched like any other')
  t.ok(matches(parseGlob('docs/über.md'), 'docs/über.md'))
})

t.test('malformed globs are refused, saying why', async (t) => {
  const bad: [string, RegExp][] = [
    ['', /empty/],
    ['a//b', /empty segment/],
    ['/src/**', /leading "\/"/],
    ['src/', /src\/\*\*/],
    ['src/[abc', /not closed/],
    ['src/a**', /whole segment/],
    ['src/{a,b}.ts', /braces/],
    ['src/[/]', /not closed/],
    ['src/[+-0]', /cannot match "\/"/],
    ['../x', /".." segment/],
    ['src/[z-a]', /backwards/],
    ['a\\', /escape/],
    ['a\u0001b', /control/],
    ['x'.repeat(600), /longer than 512/],
  ]
  for (const [p, why] of bad) t.throws(() => parseGlob(p), { constructor: GlobError, message: why }, p)
})

/** Generated globs over a small alphabet; short enough that a shortest common path fits in allPaths(). */
const segment = fc.oneof(
  { weight: 1, arbitrary: fc.constant('**') },
  {
    weight: 5,
    arbitrary: fc
      .array(fc.constantFrom('a', 'b', 'c', '?', '*', '[ab]', '[!a]', '[a-b]', '\\c'), { minLength: 1, maxLength: 3 })
      .map((xs) => xs.join(''))
      .filter((s) => !s.includes('**')),
  },
)
const glob = fc.array(segment, { minLength: 1, maxLength: 3 }).map((xs) => xs.join('/'))

t.test('overlap agrees with a brute-force matcher over every short path', async (t) => {
  const paths = allPaths(6)
  fc.assert(
    fc.property(glob, glob, (a, b) => {
      const ga = parseGlob(a)
      const gb = parseGlob(b)
      const witness = overlap(ga, gb)
      const common = paths.find((p) => bruteMatch(a, p) && bruteMatch(b, p))
      if (common !== undefined && witness === null) return false
      if (witness !== null) {
        if (!wellFormed(witness) || !bruteMatch(a, witness) || !bruteMatch(b, witness)) return false
        if (overlap(gb, ga) === null) return false
      }
      return true
    }),
    { numRuns: 300 },
  )
  t.pass('held for 300 generated pairs')
})

t.test('matching agrees with the brute-force matcher', async (t) => {
  const paths = allPaths(5)
  fc.assert(
    fc.property(glob, (a) => {
      const g = parseGlob(a)
      return paths.every((p) => matches(g, p) === bruteMatch(a, p))
    }),
    { numRuns: 200 },
  )
  t.pass('held for 200 generated globs over every path of up to 5 characters')
})

t.test('matching takes linear time on a pattern that makes backtracking explode', async (t) => {
  const g = parseGlob('*a*a*a*a*a*a*a*a*a*a*a*a*b')
  t.notOk(matches(g, 'a'.repeat(4000)))
})
