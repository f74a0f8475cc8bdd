// How a vector is kept: normalised, then quantised to 8 bits the way Redis vector sets quantise
// (Q8, modules/vector-sets/hnsw.c: scale by 127 / max |x|, round away from zero): a vector
// written to a vector set from its float32 form (fp32) quantises back to exactly these bytes, so
// VSIM searches the very vectors the node scores (its similarities are these to float32
// precision; the node scores what VSIM finds itself, in double: follower.ts).
//
// A vector q (int8, largest |q| = 127) stands for q / |q|; `range` = 127 / |q|, which is what
// Redis keeps for the same vector, and the cosine of two vectors is dot(qa, qb) * ra * rb / 127².
// Packed: 16 hex characters of the text hash, the range (float32 LE), the int8 values.
import { createHash } from 'node:crypto'

export interface Quantized {
  q: Int8Array
  range: number
}

const HASH_CHARS = 16
const HEADER = HASH_CHARS + 4

/** A short hash of the text a vector was made from: a record whose text changed has a vector to remake. */
export function textHash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, HASH_CHARS)
}

/** Normalises and quantises `v`; undefined for a zero vector (it has no direction to compare). */
export function quantize(v: ArrayLike<number>): Quantized | undefined {
  let max = 0
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!))
  if (!(max > 0) || !Number.isFinite(max)) return undefined
  const q = new Int8Array(v.length)
  const scale = 127 / max
  let norm = 0
  for (let i = 0; i < v.length; i++) {
    const x = v[i]! * scale
    const r = Math.sign(x) * Math.round(Math.abs(x)) // C's roundf: halves away from zero
    q[i] = r
    norm += r * r
  }
  return { q, range: 127 / Math.sqrt(norm) }
}

/** Cosine of two quantised vectors of the same length. */
export function cosine(a: Quantized, b: Quantized): number {
  return (dot(a.q, 0, b.q, a.q.length) * a.range * b.range) / 16129
}

/** dot(a[offset .. offset+n], b[0 .. n]) in integers. */
export function dot(a: Int8Array, offset: number, b: Int8Array, n: number): number {
  let s0 = 0
  let s1 = 0
  let i = 0
  for (; i + 1 < n; i += 2) {
    s0 += a[offset + i]! * b[i]!
    s1 += a[offset + i + 1]! * b[i + 1]!
  }
  if (i < n) s0 += a[offset + i]! * b[i]!
  return s0 + s1
}

export function pack(hash: string, v: Quantized): Buffer {
  const buf = Buffer.alloc(HEADER + v.q.length)
  buf.write(hash.padEnd(HASH_CHARS, '0').slice(0, HASH_CHARS), 0, 'latin1')
  buf.writeFloatLE(v.range, HASH_CHARS)
  Buffer.from(v.q.buffer, v.q.byteOffset, v.q.length).copy(buf, HEADER)
  return buf
}

export function unpack(buf: Buffer): Quantized & { hash: string } {
  const q = new Int8Array(buf.length - HEADER)
  q.set(new Int8Array(buf.buffer, buf.byteOffset + HEADER, buf.length - HEADER))
  return { hash: buf.toString('latin1', 0, HASH_CHARS), range: buf.readFloatLE(HASH_CHARS), q }
}

/** The float32 values a vector stands for (unit length): what VADD and VSIM take. */
export function fp32(v: Quantized): Buffer {
  const out = Buffer.alloc(v.q.length * 4)
  for (let i = 0; i < v.q.length; i++) out.writeFloatLE((v.q[i]! * v.range) / 127, i * 4)
  return out
}
