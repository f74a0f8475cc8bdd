// The vectors of a room's semantic search, as the store keeps them (keys.vectors): one repository
// over the scripts that write and read them (lua/*Vectors*.lua), with their replies typed here
// once, and the check whether the server has vector sets. The search layer never builds a key or
// sends a raw command for vectors.
import { Cluster } from 'ioredis'
import { encode } from '../shared/msgpack.js'
import type { RoomRef } from './keys.js'
import type { Store } from './store.js'

/**
 * One vector to write: its packed form, its keep priority (absent: the one it has), and (mirroring
 * only) its float32 form and attributes.
 */
export interface VectorPut {
  key: string
  packed: Buffer
  priority?: number
  fp32?: Buffer
  attrs?: string
}

export interface VectorWrite {
  ver: number
  /** Vectors the room keeps now. */
  count: number
  /** Removed past the bound by this write. */
  evicted: number
  /** Vectors in the vector set (-1: not mirrored). */
  mirrored: number
}

export interface VectorChanges {
  ver: number
  epoch: string
  /** The embedding model the room's vectors were made with ('' before any). */
  gen: string
  /** The answer starts from scratch: drop what is held first. */
  full: boolean
  /** The answer is complete up to this version. */
  upto: number
  puts: { key: string; packed: Buffer }[]
  dels: string[]
}

export interface VectorMatches {
  gen: string
  /** False: the vector set does not hold the room's vectors (rank in process instead). */
  mirrored: boolean
  /** Vectors the room has. */
  card: number
  /**
   * The vectors VSIM's exact mode found (its order: nearest first by its float32 distance), packed
   * as written: the caller scores them.
   */
  hits: { key: string; packed: Buffer }[]
}

/** A vector to write into the room's vector set again: as read, with its float32 form and attributes. */
export interface VectorMirror {
  key: string
  packed: Buffer
  fp32: Buffer
  attrs: string
}

export class VectorStore {
  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
  ) {}

  private keys(ref: RoomRef): [vec: string, order: string, log: string, dels: string, set: string] {
    const k = this.store.keys.vectors(ref)
    return [k.vec, k.order, k.log, k.dels, k.set]
  }

  /**
   * Whether every master has vector sets (VADD, Redis 8), asked with COMMAND INFO: a server
   * without the command answers a nil entry. One master without them means no.
   */
  async hasVectorSets(): Promise<boolean> {
    const c = this.store.client
    const nodes = c instanceof Cluster ? c.nodes('master') : [c]
    const answers = await Promise.all(nodes.map((n) => n.call('COMMAND', 'INFO', 'VADD') as Promise<unknown[]>))
    return answers.every((a) => Array.isArray(a) && Array.isArray(a[0]))
  }

  /** Writes and removes vectors in one script, keeping the room within `bound`. */
  async write(
    ref: RoomRef,
    change: { put: VectorPut[]; del: string[]; gen: string },
    bound: number,
    mirror: boolean,
  ): Promise<VectorWrite> {
    // Lua's msgpack has no binary type: the blobs go as arguments of their own, in put order.
    const payload = {
      put: change.put.map((p) => ({
        k: p.key,
        ...(p.priority === undefined ? {} : { p: p.priority }),
        ...(mirror ? { a: p.attrs ?? '{}' } : {}),
      })),
      del: change.del,
      gen: change.gen,
    }
    const blobs = change.put.flatMap((p) => (mirror ? [p.packed, p.fp32 ?? Buffer.alloc(0)] : [p.packed]))
    const r = await this.store.run('writeVectors', this.keys(ref), [
      this.ttlMs,
      bound,
      mirror ? '1' : '0',
      Buffer.from(encode(payload)),
      ...blobs,
    ])
    return { ver: Number(r.ver), count: Number(r.count), evicted: Number(r.evicted), mirrored: Number(r.mirrored) }
  }

  /** Refreshes the TTL of the room's vector keys (changes nothing else). */
  async keepAlive(ref: RoomRef, ttlMs: number): Promise<void> {
    await this.store.run('writeVectors', this.keys(ref), [ttlMs, 1, '0', Buffer.from(encode({ put: [], del: [] }))])
  }

  /** Removes every vector of the room and, while the room exists, starts a new epoch. */
  async drop(ref: RoomRef, epoch: string): Promise<void> {
    await this.store.run('dropVectors', [...this.keys(ref), this.store.keys.room(ref).meta], [this.ttlMs, epoch])
  }

  /** The text hash of each named record's vector ('' when it has none). */
  async hashes(ref: RoomRef, keys: string[]): Promise<string[]> {
    if (keys.length === 0) return []
    const r = await this.store.run('readVectorHashes', [this.store.keys.vectors(ref).vec], [Buffer.from(encode(keys))])
    return r.hashes.map(String)
  }

  /** What changed since version `since` of epoch `epoch` (everything when since < 0), at most about `max` vectors. */
  async changes(ref: RoomRef, since: number, epoch: string, max: number): Promise<VectorChanges> {
    const k = this.store.keys.vectors(ref)
    const r = await this.store.run('readVectorChanges', [k.vec, k.log, k.dels], [since, epoch, max])
    const keys = r.keys
    return {
      ver: Number(r.ver),
      epoch: String(r.epoch),
      gen: String(r.gen),
      full: r.full === true,
      upto: Number(r.upto),
      puts: keys.map((key, i) => ({ key: String(key), packed: r.rows[i]! })),
      dels: r.dels.map(String),
    }
  }

  /** The `count` nearest vectors to `query` (float32 blob) in the room's vector set, by VSIM's exact mode (TRUTH). */
  async similar(ref: RoomRef, query: Buffer, count: number, filter: string): Promise<VectorMatches> {
    const k = this.store.keys.vectors(ref)
    const r = await this.store.run('searchVectors', [k.vec, k.order, k.set], [query, count, filter])
    const keys = r.keys ?? []
    return {
      gen: String(r.gen),
      mirrored: r.mirrored === true,
      card: Number(r.card),
      hits: keys.map((key, i) => ({ key: String(key), packed: r.rows[i]! })),
    }
  }

  /**
   * Writes vectors as read into the room's vector set, each only while it is still its record's
   * (`fresh`: the set starts from nothing). Changes no record and no version.
   */
  async mirror(
    ref: RoomRef,
    fresh: boolean,
    vectors: VectorMirror[],
  ): Promise<{ added: number; mirrored: number; card: number }> {
    const k = this.store.keys.vectors(ref)
    const blobs = vectors.flatMap((v) => [v.packed, v.fp32])
    const r = await this.store.run(
      'mirrorVectors',
      [k.vec, k.order, k.set],
      [fresh ? '1' : '0', Buffer.from(encode(vectors.map((v) => ({ k: v.key, a: v.attrs })))), ...blobs],
    )
    return { added: Number(r.added), mirrored: Number(r.mirrored), card: Number(r.card) }
  }
}
