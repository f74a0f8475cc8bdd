// MessagePack as every layer encodes and decodes it: @msgpack/msgpack with its default options,
// through one Encoder and one Decoder for the process. The package's encode() and decode()
// functions make a new instance on every call, and an Encoder allocates its 2 KiB buffer anew each
// time; an instance is reusable and re-entrant (one entered again works on a clone of itself), and
// Encoder.encode answers a copy of its bytes, never its own buffer.
import { Decoder, Encoder } from '@msgpack/msgpack'

const encoder = new Encoder()
const decoder = new Decoder()

/** `value` as MessagePack (a Uint8Array of its own). */
export const encode = (value: unknown): Uint8Array<ArrayBuffer> => encoder.encode(value)

/** The value MessagePack `bytes` hold; throws on incomplete or invalid data, as the package's decode(). */
export const decode = (bytes: ArrayLike<number> | ArrayBufferView | ArrayBufferLike): unknown => decoder.decode(bytes)
