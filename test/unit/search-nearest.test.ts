// Ranking in process is exact: the WebAssembly dot products equal the JavaScript ones to the
// integer, over random and adversarial values (the extremes, every length around the 16-byte
// padding, blocks larger than the scratch memory), and a room's nearest vectors are the brute
// force's, ties, deletions, reused slots, kinds and refused records included.
import t from 'tap'
import { dot, pack, quantize, unpack, type Quantized } from '../../src/search/vectors/codec.js'
import { DOTS_WASM, jsDots, strideOf, wasmDots, type DotsFn } from '../../src/search/vectors/dots.js'
import { nearestOrder, RoomVectors, type Nearest } from '../../src/search/vectors/follower.js'

let seed = 1
function rnd(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
  return seed / 4294967296
}
const int8 = () => Math.floor(rnd() * 256) - 128

/** The plainest dot product: the reference both paths are held to. */
function naive(data: Int8Array, at: number, q: Int8Array, n: number): number {
  let s = 0
  for (let i = 0; i < n; i++) s += data[at + i]! * q[i]!
  return s
}

t.test('the WebAssembly path is there on this Node, and its module is valid', async (t) => {
  t.ok(WebAssembly.validate(DOTS_WASM))
  t.ok(wasmDots, 'wasmDots: the fast path is in use, not the fallback')
  t.equal(strideOf(384), 384)
  t.equal(strideOf(1), 16)
  t.equal(strideOf(17), 32)
})

t.test('dot products: WebAssembly, JavaScript and the plain loop agree to the integer', async (t) => {
  const paths: [string, DotsFn][] = [
    ['js', jsDots],
    ['wasm', wasmDots!],
  ]
  const fills: [string, (i: number) => number][] = [
    ['random', () => int8()],
    ['all -128 (largest products)', () => -128],
    ['all 127', () => 127],
    ['±128 alternating', (i) => (i % 2 ? 127 : -128)],
    ['sparse', () => (rnd() < 0.05 ? int8() : 0)],
  ]
  const dimsList = [1, 2, 15, 16, 17, 31, 33, 100, 384, 385, 1536, 8192]
  for (const dims of dimsList) {
    const stride = strideOf(dims)
    // At 8,192 dimensions, more than the scratch memory keeps whole (16 MiB): copied in blocks.
    for (const count of [
      0,
      1,
      3,
      dims >= 384 ? Math.ceil((600 * 1024) / stride) : 50,
      ...(dims === 8192 ? [2100] : []),
    ]) {
      for (const [fillName, fill] of count > 1000 ? fills.slice(0, 1) : fills) {
        const data = new Int8Array(count * stride)
        const q = new Int8Array(stride)
        for (let v = 0; v < count; v++) for (let i = 0; i < dims; i++) data[v * stride + i] = fill(v * dims + i)
        for (let i = 0; i < dims; i++) q[i] = fill(i + 7)
        const want = Array.from({ length: count }, (_, v) => naive(data, v * stride, q, dims))
        for (const [name, run] of paths) {
          const out = new Float64Array(count + 1).fill(NaN)
          run(data, count, stride, q, out)
          const got = [...out.subarray(0, count)]
          const bad = got.findIndex((x, i) => x !== want[i])
          if (bad >= 0)
            t.fail(
              `${name}, ${dims} dims, ${count} vectors, ${fillName}: vector ${bad} got ${got[bad]}, want ${want[bad]}`,
            )
          t.ok(Number.isNaN(out[count]), 'nothing written past the count')
        }
      }
    }
  }
  t.equal(
    naive(new Int8Array(8192).fill(-128), 0, new Int8Array(8192).fill(-128), 8192),
    8192 * 16384,
    "the largest sum at EMBEDDER_DIMENSIONS' bound",
  )
})

t.test(
  'vectors kept in the scratch memory between calls are copied again when their version changes, or another ' +
    'array is scored',
  async (t) => {
    const stride = 32
    const a = new Int8Array(stride * 100).map(() => int8())
    const b = new Int8Array(stride * 100).map(() => int8())
    const q = new Int8Array(stride).map(() => int8())
    const check = (data: Int8Array, version: number, what: string) => {
      const out = new Float64Array(100)
      wasmDots!(data, 100, stride, q, out, version)
      t.same(
        [...out],
        Array.from({ length: 100 }, (_, v) => naive(data, v * stride, q, stride)),
        what,
      )
    }
    check(a, 1, 'a, first')
    check(a, 1, 'a again, not copied: the same')
    a[5 * stride + 3] = 77
    check(a, 2, 'a changed, a new version: copied again')
    check(b, 2, 'another array at the same version number: copied')
    check(a, 2, 'a, after b: copied again')
    a.fill(1)
    check(a, 3, 'a changed again')
  },
)

/** The brute force: every live vector scored as nearest() does, sorted, the first n taken. */
function bruteForce(
  vectors: Map<string, Quantized & { hash: string }>,
  query: Quantized,
  n: number,
  accept: (key: string) => boolean,
): Nearest[] {
  const scale = query.range / 16129
  const all: Nearest[] = []
  for (const [key, v] of vectors) {
    const cosine = naive(v.q, 0, query.q, v.q.length) * v.range * scale
    if (cosine > 0 && accept(key)) all.push({ key, cosine, hash: v.hash })
  }
  return all.sort(nearestOrder).slice(0, n)
}

t.test(
  'nearest vectors in process equal the brute force: random, clustered, tied, deleted, of some kinds and refused',
  async (t) => {
    for (const dims of [384, 100, 7]) {
      const room = new RoomVectors()
      const other = new RoomVectors()
      other.apply({
        ver: 1,
        epoch: 'o',
        gen: 'm',
        full: true,
        upto: 1,
        puts: [
          { key: 'task:o1', packed: pack('0'.repeat(16), quantize(Array.from({ length: dims }, () => rnd() - 0.5))!) },
        ],
        dels: [],
      })
      const held = new Map<string, Quantized & { hash: string }>()
      const centers = Array.from({ length: 4 }, () => Array.from({ length: dims }, () => rnd() - 0.5))
      const floats = (kind: number) =>
        kind === 0
          ? Array.from({ length: dims }, () => rnd() - 0.5)
          : centers[kind % 4]!.map((x) => x + 0.05 * (rnd() - 0.5))
      let ver = 0
      const write = (puts: [string, number[]][], dels: string[] = []) => {
        ver++
        const rows = puts.map(([key, f]) => ({ key, packed: pack(`h${ver}`.padEnd(16, '0'), quantize(f)!) }))
        room.apply({ ver, epoch: 'e', gen: 'm', full: ver === 1, upto: ver, puts: rows, dels })
        for (const key of dels) held.delete(key)
        for (const r of rows) held.set(r.key, unpack(r.packed))
      }
      // 3,000 vectors: random ones, clusters (near neighbours), exact duplicates (ties broken by key),
      // and axis vectors, at a right angle to one another (cosine 0: left out).
      const dup = floats(0)
      const axis = (i: number) => Array.from({ length: dims }, (_, j) => (j === i ? 1 : 0))
      write(
        Array.from({ length: 3000 }, (_, i) => [`task:t${i}`, i < 6 ? axis(i) : i % 10 === 0 ? dup : floats(i % 3)]),
      )
      // Deletions free slots, which later writes reuse; some vectors are rewritten in place.
      write(
        [],
        Array.from({ length: 400 }, (_, i) => `task:t${i * 7}`),
      )
      write(
        Array.from({ length: 300 }, (_, i) => [
          i % 2 ? `task:t${i * 5 + 1}` : `context:c${i}`,
          i % 3 === 0 ? dup : floats(i),
        ]),
      )
      t.equal(room.size, held.size, `${dims} dims: the vectors held`)
      for (let qi = 0; qi < 30; qi++) {
        // Every third query after a change: a rewrite, a removal, a new record, or another room scored between.
        if (qi % 3 === 2)
          write(
            [
              [`task:t${qi * 11}`, floats(qi)],
              [`event:e${qi}`, dup],
            ],
            [`task:t${qi * 13 + 1}`],
          )
        if (qi % 7 === 6) other.nearest(quantize(floats(1))!, 5, () => true)
        const query = quantize(
          qi % 5 === 0 ? dup : qi % 5 === 1 ? dup.map((x) => -x) : qi % 5 === 2 ? axis(6) : floats(qi),
        )!
        for (const n of [1, 10, 50, 5000]) {
          // Refusals: none, one record in ten, or most (past the spare candidates: the second pass).
          const refuse = [() => true, (key: string) => !key.endsWith('3'), (key: string) => key.endsWith('7')][qi % 3]!
          const kinds = qi % 4 === 3 ? ['context', 'event'] : qi % 4 === 1 ? ['task'] : undefined
          const got = room.nearest(query, n, (key) => refuse(key), kinds)
          const want = bruteForce(
            held,
            query,
            n,
            (key) => refuse(key) && (!kinds || kinds.includes(key.slice(0, key.indexOf(':')))),
          )
          if (JSON.stringify(got) === JSON.stringify(want)) continue
          const at = want.findIndex((w, i) => JSON.stringify(w) !== JSON.stringify(got[i]))
          t.fail(
            `${dims} dims, query ${qi}, n ${n}: ${got.length} found, ${want.length} wanted; at ${at}: ` +
              `${JSON.stringify(got[at])} ≠ ${JSON.stringify(want[at])}`,
          )
        }
      }
      t.pass(`${dims} dims: 30 queries × 4 sizes equal the brute force`)
      const opposite = room.nearest(quantize(dup.map((x) => -x))!, 5000, () => true)
      t.ok(
        opposite.every((h) => h.cosine > 0) &&
          !opposite.some((h) => held.get(h.key)!.q.every((x, i) => x === quantize(dup)!.q[i])),
        'vectors pointing away from the query are left out',
      )
    }
  },
)

t.test(
  "a vector of another length is not held (another model's, on its way out), and a query of another length " +
    'finds nothing',
  async (t) => {
    const room = new RoomVectors()
    const v = (dims: number) => pack('0'.repeat(16), quantize(Array.from({ length: dims }, (_, i) => Math.cos(i)))!)
    room.apply({
      ver: 1,
      epoch: 'e',
      gen: 'm',
      full: true,
      upto: 1,
      puts: [
        { key: 'task:t1', packed: v(20) },
        { key: 'task:t2', packed: v(30) },
      ],
      dels: [],
    })
    t.equal(room.size, 1)
    t.same(
      room.nearest(quantize(Array.from({ length: 30 }, (_, i) => Math.cos(i)))!, 5, () => true),
      [],
    )
    t.equal(
      room.nearest(quantize(Array.from({ length: 20 }, (_, i) => Math.cos(i)))!, 5, () => true)[0]!.key,
      'task:t1',
    )
    t.equal(dot(new Int8Array([1, 2]), 0, new Int8Array([3, 4]), 2), 11)
  },
)
