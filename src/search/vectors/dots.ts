// The integer dot products of one int8 query with a room's int8 vectors: ranking in process
// spends nearly all its time here (5,000 × 384 at the bound: 2.4-3.5 ms as a JavaScript loop,
// whatever the unrolling). WebAssembly SIMD (in every Node since 16.4) takes 16 values at a time,
// widens them to 16 bits and multiplies and adds them pairwise into four 32-bit lanes
// (i32x4.dot_i16x8_s): ~0.15 ms for the same work. Integer arithmetic throughout, so every result
// is exactly the one the JavaScript loop gives, which stays as the fallback (no WebAssembly,
// e.g. node --jitless) and as the reference the tests compare with: |a·b| <= dims × 128², below
// 2³¹ while dims < 131,072 (EMBEDDER_DIMENSIONS is at most 8,192; longer vectors go to
// JavaScript, whose doubles hold any of these sums exactly).
//
// Vectors are laid out one after another, each padded with zeros to a multiple of 16 bytes (the
// stride): padding adds nothing to a dot product. They stay in the rooms' own Int8Arrays and are
// copied into one scratch memory per process (~0.15 ms for 1.9 MB), where the last room scored
// stays until it changes or another room is scored (so a room searched again and again is not
// copied each time): a WebAssembly.Memory per room would reserve ~10 GiB of address space each,
// and V8 refuses the 13,000th.
//
// The module is assembled below from its instructions (no toolchain, no binary file). As text:
//   (func (export "dots") (param $data i32) (param $query i32) (param $n i32) (param $stride i32) (param $out i32)
//     (local $end i32) (local $q i32) (local $acc v128) (local $a v128) (local $b v128)
//     block  (br_if 0 (i32.eqz $n))
//       loop                                   ;; each vector
//         $acc = 0;  $end = $data + $stride;  $q = $query
//         loop                                 ;; each 16 values
//           $a = v128.load $data;  $b = v128.load $q
//           $acc += dot_i16x8_s(extend_low_s $a, extend_low_s $b) + dot_i16x8_s(extend_high_s $a, extend_high_s $b)
//           $data += 16;  $q += 16
//           br_if 0 ($data < $end)
//         end
//         i32.store $out (lane0 + lane1 + lane2 + lane3 of $acc);  $out += 4
//         br_if 0 (--$n)
//       end
//     end)
import { dot } from './codec.js'

/**
 * Computes `out[v] = query · vector v` for the `count` vectors of `data` (each `stride` bytes;
 * `query` is `stride` bytes too). `version`: a number the caller changes whenever the contents of
 * `data` change; with it, vectors already in the scratch memory are not copied again.
 */
export type DotsFn = (
  data: Int8Array,
  count: number,
  stride: number,
  query: Int8Array,
  out: Float64Array,
  version?: number,
) => void

/** Bytes a vector of `dims` values takes in a room's layout: rounded up to 16 (one SIMD register). */
export function strideOf(dims: number): number {
  return Math.ceil(dims / 16) * 16
}

/** The reference: the same integers, one multiply-add at a time. */
export const jsDots: DotsFn = (data, count, stride, query, out) => {
  for (let v = 0; v < count; v++) out[v] = dot(data, v * stride, query, stride)
}

/** Longest stride whose dot products cannot leave the 32-bit lanes (see the header). */
const MAX_STRIDE = 131_072 - 16
/** Vector bytes copied into the scratch memory at a time when they do not stay there (fits the L2 cache). */
const BLOCK = 256 * 1024
/**
 * Most vector bytes that stay in the scratch memory between calls (a room at the bound: 1.9 MB at
 * 384 dimensions, 7.7 MB at 1,536).
 */
const RESIDENT = 16 * 1024 * 1024
const PAGE = 65_536

// The module's bytes, from named instructions.
const I32 = 0x7f
const V128 = 0x7b
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  brIf0: [0x0d, 0x00],
  i32eqz: [0x45],
  i32ltU: [0x49],
  i32add: [0x6a],
  i32sub: [0x6b],
  i32store: [0x36, 0x02, 0x00],
  get: (i: number) => [0x20, i],
  set: (i: number) => [0x21, i],
  tee: (i: number) => [0x22, i],
  i32const: (n: number) => [0x41, n], // small non-negative constants only (one LEB128 byte: < 64)
  // SIMD instructions: the 0xfd prefix, then the opcode as LEB128.
  v128load: [0xfd, 0x00, 0x00, 0x00],
  v128zero: [0xfd, 0x0c, ...new Array<number>(16).fill(0)],
  extendLowS: [0xfd, 0x87, 0x01], // i16x8.extend_low_i8x16_s
  extendHighS: [0xfd, 0x88, 0x01], // i16x8.extend_high_i8x16_s
  dot: [0xfd, 0xba, 0x01], // i32x4.dot_i16x8_s
  add: [0xfd, 0xae, 0x01], // i32x4.add
  lane: (i: number) => [0xfd, 0x1b, i], // i32x4.extract_lane
}
const [DATA, QUERY, N, STRIDE, OUT, END, Q, ACC, A, B] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] as const

const body = [
  ...op.block,
  ...op.get(N),
  ...op.i32eqz,
  ...op.brIf0,
  ...op.loop,
  ...op.v128zero,
  ...op.set(ACC),
  ...op.get(DATA),
  ...op.get(STRIDE),
  ...op.i32add,
  ...op.set(END),
  ...op.get(QUERY),
  ...op.set(Q),
  ...op.loop,
  ...op.get(DATA),
  ...op.v128load,
  ...op.set(A),
  ...op.get(Q),
  ...op.v128load,
  ...op.set(B),
  ...op.get(ACC),
  ...op.get(A),
  ...op.extendLowS,
  ...op.get(B),
  ...op.extendLowS,
  ...op.dot,
  ...op.add,
  ...op.get(A),
  ...op.extendHighS,
  ...op.get(B),
  ...op.extendHighS,
  ...op.dot,
  ...op.add,
  ...op.set(ACC),
  ...op.get(DATA),
  ...op.i32const(16),
  ...op.i32add,
  ...op.set(DATA),
  ...op.get(Q),
  ...op.i32const(16),
  ...op.i32add,
  ...op.set(Q),
  ...op.get(DATA),
  ...op.get(END),
  ...op.i32ltU,
  ...op.brIf0,
  ...op.end,
  ...op.get(OUT),
  ...op.get(ACC),
  ...op.lane(0),
  ...op.get(ACC),
  ...op.lane(1),
  ...op.i32add,
  ...op.get(ACC),
  ...op.lane(2),
  ...op.i32add,
  ...op.get(ACC),
  ...op.lane(3),
  ...op.i32add,
  ...op.i32store,
  ...op.get(OUT),
  ...op.i32const(4),
  ...op.i32add,
  ...op.set(OUT),
  ...op.get(N),
  ...op.i32const(1),
  ...op.i32sub,
  ...op.tee(N),
  ...op.brIf0,
  ...op.end,
  ...op.end,
  ...op.end,
]

/** Unsigned LEB128 (section and vector lengths). */
function leb(n: number): number[] {
  const out: number[] = []
  do {
    const b = n & 0x7f
    n >>>= 7
    out.push(n ? b | 0x80 : b)
  } while (n)
  return out
}
const vec = (items: number[][]) => [...leb(items.length), ...items.flat()]
const name = (s: string) => [...leb(s.length), ...Buffer.from(s, 'latin1')]
const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content]
const code = [
  ...vec([
    [2, I32],
    [3, V128],
  ]),
  ...body,
]

/** The module: imports its memory (env.memory), exports dots(data, query, n, stride, out). */
export const DOTS_WASM = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // \0asm, version 1
  ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0x00]])), // type: (i32 ×5) -> ()
  ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x00]])), // import env.memory, min 0 pages
  ...section(3, vec([[0x00]])), // one function, of type 0
  ...section(7, vec([[...name('dots'), 0x00, 0x00]])), // export it as "dots"
  ...section(10, vec([[...leb(code.length), ...code]])),
])

/**
 * The WebAssembly path, over one scratch memory: [vectors | query | scores]. Vectors of up to
 * RESIDENT bytes are copied whole and stay there: the next call with the same array at the same
 * version (the caller changes it with the contents) does not copy them again. Larger ones are
 * copied a block at a time.
 */
function wasmPath(): DotsFn | undefined {
  if (typeof WebAssembly === 'undefined' || !WebAssembly.validate(DOTS_WASM)) return undefined
  const memory = new WebAssembly.Memory({ initial: 1 })
  const run = new WebAssembly.Instance(new WebAssembly.Module(DOTS_WASM), { env: { memory } }).exports.dots as (
    data: number,
    query: number,
    n: number,
    stride: number,
    out: number,
  ) => void
  let bytes = new Int8Array(memory.buffer)
  let ints = new Int32Array(memory.buffer)
  /** The vectors in the scratch memory now, if whole: which array, at which version, how many. */
  let held: { data: WeakRef<Int8Array>; version: number; size: number } | undefined
  return (data, count, stride, query, out, version) => {
    if (stride > MAX_STRIDE || stride % 16 !== 0) return jsDots(data, count, stride, query, out)
    const whole = count * stride <= RESIDENT
    const per = whole ? count : Math.max(1, Math.floor(BLOCK / stride))
    const queryAt = per * stride
    const scoresAt = queryAt + stride
    const need = scoresAt + per * 4
    if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE))
    if (bytes.buffer !== memory.buffer) {
      bytes = new Int8Array(memory.buffer)
      ints = new Int32Array(memory.buffer)
    }
    bytes.set(query.subarray(0, stride), queryAt)
    if (whole) {
      const size = count * stride
      if (version === undefined || held?.version !== version || held.size !== size || held.data.deref() !== data) {
        bytes.set(data.subarray(0, size), 0)
        held = version === undefined ? undefined : { data: new WeakRef(data), version, size }
      }
      run(0, queryAt, count, stride, scoresAt)
      out.set(ints.subarray(scoresAt / 4, scoresAt / 4 + count), 0)
      return
    }
    held = undefined
    for (let v = 0; v < count; v += per) {
      const m = Math.min(per, count - v)
      bytes.set(data.subarray(v * stride, (v + m) * stride), 0)
      run(0, queryAt, m, stride, scoresAt)
      out.set(ints.subarray(scoresAt / 4, scoresAt / 4 + m), v)
    }
  }
}

/** The WebAssembly path when this runtime has it (undefined otherwise). */
export const wasmDots: DotsFn | undefined = wasmPath()

/** The dot products, by the fastest path this runtime has; the results are the same on every path. */
export const dots: DotsFn = wasmDots ?? jsDots
