// Context tools: durable typed documents keyed by (type, key), with versions and diffs.
import { z } from 'zod'
import { tool, type ToolDef } from '../tool.js'

/** The entry's address; its conventions are described once, on write_context. */
const ref = { type: z.string(), key: z.string() }
const described = {
  type: ref.type.describe('brief, spec, handoff, change_request, decision, runbook, ...'),
  key: ref.key.describe('Name within the type, e.g. "api"'),
}
const expectedVersion = z.number().int().optional().describe('Only if still at this version; 0: must not exist')

export const contextTools: ToolDef[] = [
  tool({
    name: 'write_context',
    title: 'Write context',
    description:
      'Creates or replaces entry (type, key) with a text body; old versions stay in history. For durable agreements, specs, handoffs. Partial change: update_context.',
    scope: 'room',
    args: { ...described, body: z.string().describe('Full text (markdown)'), expected_version: expectedVersion },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ node, caller }, a) => node.core.context.write(caller, a),
  }),
  tool({
    name: 'read_context',
    title: 'Read context',
    description: 'An entry\'s body (current or a kept older version) with its whole metadata.',
    scope: 'room',
    args: { ...ref, version: z.number().int().optional() },
    mutates: false,
    core: true,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.context.read(caller, a),
  }),
  tool({
    name: 'update_context',
    title: 'Update context',
    description: 'Patches an entry into a new version. Exactly one of: append, edits (exact old→new; each old must match once), body (replace all).',
    scope: 'room',
    args: {
      ...ref,
      append: z.string().optional(),
      edits: z.array(z.object({ old: z.string(), new: z.string() })).optional().describe('Applied in order'),
      body: z.string().optional(),
      expected_version: expectedVersion,
    },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ node, caller }, a) => node.core.context.update(caller, a),
  }),
  tool({
    name: 'list_context',
    title: 'List context',
    description: 'Context entries, without bodies: type, key, version, size, last update. Optionally one type.',
    scope: 'room',
    args: { type: z.string().optional().describe('Only this type'), limit: z.number().int().optional().describe('Default 50') },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.context.list(caller, a),
  }),
  tool({
    name: 'delete_context',
    title: 'Delete context',
    description: 'Deletes an entry, its kept versions and its pending reviews, for good.',
    scope: 'room',
    args: ref,
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: ({ node, caller }, a) => node.core.context.delete(caller, a),
  }),
  tool({
    name: 'get_context_history',
    title: 'Get context history',
    description: 'An entry\'s kept versions, newest first: version, author, time, size (read one with read_context version).',
    scope: 'room',
    args: ref,
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.context.history(caller, a),
  }),
  tool({
    name: 'diff_context',
    title: 'Diff context',
    description: 'Unified diff between two kept versions of an entry (default previous → current), with line counts. See what changed since you read it.',
    scope: 'room',
    args: {
      ...ref,
      from_version: z.number().int().optional().describe('Default previous; 0 is empty'),
      to_version: z.number().int().optional(),
    },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.context.diff(caller, a),
  }),
]
