// Lock tools: exclusive, expiring claims on named resources, with fencing tokens.
import { z } from 'zod'
import { tool, type ToolDef } from '../tool.js'

const lockName = z.string().describe('Resource, e.g. "file:src/db/schema.ts"')

export const lockTools: ToolDef[] = [
  tool({
    name: 'acquire_lock',
    title: 'Acquire lock',
    description:
      'Exclusive lock on a named resource (file, migration, deploy) for ttl_s; conflict names the holder. Calling again while holding it extends it. Release with release_lock when done.',
    scope: 'room',
    args: { name: lockName, ttl_s: z.number().int().optional().describe('Seconds until it expires; omit for the default') },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ node, caller }, a) => node.core.locks.acquire(caller, a),
  }),
  tool({
    name: 'release_lock',
    title: 'Release lock',
    description: 'Releases a lock you hold. A free lock answers released: false (safe to repeat).',
    scope: 'room',
    args: { name: lockName, token: z.number().int().optional().describe('Only this acquisition (token from acquire_lock)') },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ node, caller }, a) => node.core.locks.release(caller, a),
  }),
  tool({
    name: 'list_locks',
    title: 'List locks',
    description: 'Locks held now: name, owner, token, expiry.',
    scope: 'room',
    args: {},
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }) => node.core.locks.list(caller),
  }),
]
