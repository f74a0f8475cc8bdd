// Lock tools: exclusive, expiring claims on named resources, with fencing tokens; and file
// reservations: glob patterns an agent is about to change, exclusive or shared, with the same tokens.
import { lockSchemas } from '../../core/locks.js'
import { reservationSchemas } from '../../core/reservations.js'
import type { Core } from '../../core/index.js'
import { coreArgs, CORE_SETTINGS } from '../args.js'
import { toolsOf, type ToolDef } from '../tool.js'
import * as o from '../outputs.js'
import { z } from 'zod'

const locks = lockSchemas(CORE_SETTINGS)
const reservations = reservationSchemas(CORE_SETTINGS)

/** What the lock tools use. */
export interface LockToolDeps {
  core: Pick<Core, 'locks' | 'reservations'>
}

const tool = toolsOf<LockToolDeps>()

export const lockTools: ToolDef<LockToolDeps>[] = [
  tool({
    name: 'acquire_lock',
    title: 'Acquire lock',
    description: 'Exclusive lock on a named resource for ttl_s; again while held extends it.',
    scope: 'room',
    args: coreArgs(locks.acquire, { name: 'e.g. file:src/db/schema.ts', ttl_s: 'Seconds to hold it' }),
    output: { lock: o.heldLock, extended: z.boolean() },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.locks.acquire(caller, a).then(o.withHeldLock),
  }),
  tool({
    name: 'release_lock',
    title: 'Release lock',
    description: 'Releases a lock you hold; safe to repeat.',
    scope: 'room',
    args: coreArgs(locks.release, { name: 'Lock name', token: 'Only this acquisition' }),
    output: { released: z.boolean(), name: o.str, token: o.int.optional(), reason: o.str.optional() },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.locks.release(caller, a),
  }),
  tool({
    name: 'list_locks',
    title: 'List locks',
    description: 'Locks held now, with owner and expiry.',
    scope: 'room',
    args: coreArgs(locks.list, {}),
    output: { locks: z.array(o.lock) },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.locks.list(caller, a),
  }),
  tool({
    name: 'reserve_files',
    title: 'Reserve files',
    description: 'Reserves globs of files you will change, exclusive or shared, for ttl_s; all or none. Again renews.',
    scope: 'room',
    args: coreArgs(reservations.reserve, {
      patterns: 'From the repo root',
      exclusive: 'Default true',
      ttl_s: 'Seconds to hold them',
      reason: 'What you will change',
    }),
    output: { reservations: z.array(o.reservation) },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.reservations.reserve(caller, a),
  }),
  tool({
    name: 'release_files',
    title: 'Release files',
    description: 'Releases file reservations you hold.',
    scope: 'room',
    args: coreArgs(reservations.release, { patterns: 'Default all of yours' }),
    output: { released: o.strs, not_held: o.strs },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.reservations.release(caller, a),
  }),
  tool({
    name: 'list_reservations',
    title: 'List reservations',
    description: 'File reservations held now, by every agent.',
    scope: 'room',
    args: coreArgs(reservations.list, { agent: 'Only this holder' }),
    output: { reservations: z.array(o.reservation) },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.reservations.list(caller, a),
  }),
]
