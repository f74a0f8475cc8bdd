// Context tools: durable typed documents keyed by (type, key), with versions and diffs.
import { z } from 'zod'
import { tool, type ToolDef } from '../tool.js'

const ref = {
  type: z.string().describe('brief, spec, handoff, change_request, decision, runbook, ...'),
  key: z.string().describe('Name within the type, e.g. "api"'),
}
const expectedVersion = z.number().int().optional().describe('Only if still at this version; 0: must not exist')

export const contextTools: ToolDef[] = [
  tool({
    name: 'write_context',
    title: 'Write context',
    description:
      'Creates or replaces the entry (type, key) with a text body; old versions stay in history. Durable agreements, specs, handoffs go here. Partial change: update_context.',
    scope: 'room',
    args: { ...ref, body: z.string().describe('Full text (markdown)'), expected_version: expectedVersion },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ node, caller }, a) => node.core.context.write(caller, a),
  }),
  tool({
    name: 'read_context',
    title: 'Read context',
    description: 'The body of a context entry (current or a kept older version) with its metadata.',
    scope: 'room',
    args: { ...ref, version: z.number().int().optional().describe('Older kept version; default current') },
    mutates: false,
    core: true,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.context.read(caller, a),
  }),
  tool({
    name: 'update_context',
    title: 'Update context',
    description:
      'Patches an entry into a new version (history kept). Give exactly one of: append (text added at the end), edits (exact old→new replacements, each old must match once), or body (full replacement). Cheaper than rewriting a long body.',
    scope: 'room',
    args: {
      ...ref,
      append: z.string().optional().describe('Text to add at the end'),
      edits: z
        .array(z.object({ old: z.string().describe('Exact current text'), new: z.string().describe('Replacement') }))
        .optional()
        .describe('Exact-text replacements, applied in order'),
      body: z.string().optional().describe('Full new body'),
      expected_version: expectedVersion,
    },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ node, caller }, a) => node.core.context.update(caller, a),
  }),
  tool({
    name: 'list_context',
    title: 'List context',
    description: 'Metadata of every context entry (no bodies): type, key, version, size, who updated it and when. Optionally one type.',
    scope: 'room',
    args: { type: z.string().optional().describe('Only this type') },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.context.list(caller, a),
  }),
  tool({
    name: 'delete_context',
    title: 'Delete context',
    description: 'Deletes a context entry, all its kept versions and its pending reviews. Cannot be undone.',
    scope: 'room',
    args: ref,
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: ({ node, caller }, a) => node.core.context.delete(caller, a),
  }),
  tool({
    name: 'get_context_history',
    title: 'Get context history',
    description: 'The kept versions of an entry, newest first: version, author, time, size (no bodies; read one with read_context version).',
    scope: 'room',
    args: ref,
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.context.history(caller, a),
  }),
  tool({
    name: 'diff_context',
    title: 'Diff context',
    description: 'Unified diff between two kept versions of an entry (default: previous → current), with added/removed line counts. Use to see what changed since you last read it.',
    scope: 'room',
    args: {
      ...ref,
      from_version: z.number().int().optional().describe('Default previous; 0 is empty'),
      to_version: z.number().int().optional().describe('Default current'),
    },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.context.diff(caller, a),
  }),
]
