// Context tools: durable typed documents keyed by (type, key), with versions and diffs.
import { contextSchemas } from '../../core/context.js'
import type { Core } from '../../core/index.js'
import { coreArgs, CORE_SETTINGS } from '../args.js'
import { toolsOf, type ToolDef } from '../tool.js'
import * as o from '../outputs.js'
import { z } from 'zod'

const context = contextSchemas(CORE_SETTINGS)
/** The entry's address; its conventions are described once, on write_context. */
const ref = { type: 'Entry type, e.g. spec', key: 'Entry key' }
const expectedVersion = 'Only if still at this version; 0: must not exist'

/** What the context tools use. */
export interface ContextToolDeps {
  core: Pick<Core, 'context'>
}

const tool = toolsOf<ContextToolDeps>()

export const contextTools: ToolDef<ContextToolDeps>[] = [
  tool({
    name: 'write_context',
    title: 'Write context',
    description: 'Creates or replaces a durable text entry; old versions stay in history.',
    scope: 'room',
    args: coreArgs(context.write, {
      type: 'brief, spec, handoff, change_request, decision, runbook, ...',
      key: 'Name within the type, e.g. api',
      body: 'Full text (markdown)',
      expected_version: expectedVersion,
    }),
    output: { entry: o.entry, changed: z.boolean(), created: z.boolean() },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.context.write(caller, a),
  }),
  tool({
    name: 'read_context',
    title: 'Read context',
    description: "An entry's body and metadata, current or an older version.",
    scope: 'room',
    args: coreArgs(context.read, { ...ref, version: 'Default current' }),
    output: { entry: o.entry, body: o.str, current_version: o.int },
    mutates: false,
    core: true,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.context.read(caller, a),
  }),
  tool({
    name: 'update_context',
    title: 'Update context',
    description: 'Patches an entry: exactly one of append, edits (each old text must match once), body.',
    scope: 'room',
    args: coreArgs(context.update, {
      ...ref,
      append: 'Text to add at the end',
      edits: 'Applied in order',
      body: 'New whole text',
      expected_version: expectedVersion,
    }),
    output: { entry: o.entry, changed: z.boolean() },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ deps, caller }, a) => deps.core.context.update(caller, a),
  }),
  tool({
    name: 'list_context',
    title: 'List context',
    description: 'Context entries, without their bodies.',
    scope: 'room',
    args: coreArgs(context.list, { type: 'Only this type', limit: 'Default 50' }),
    output: { entries: z.array(o.entryItem), ...o.page },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.context.list(caller, a),
  }),
  tool({
    name: 'delete_context',
    title: 'Delete context',
    description: 'Deletes an entry and its history for good.',
    scope: 'room',
    args: coreArgs(context.ref, ref),
    output: { deleted: z.object({ type: o.str, key: o.str, version: o.int }), reviews_removed: o.strs },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.context.delete(caller, a),
  }),
  tool({
    name: 'get_context_history',
    title: 'Get context history',
    description: "An entry's kept versions, newest first.",
    scope: 'room',
    args: coreArgs(context.ref, ref),
    output: { entry: o.entry, versions: z.array(o.entryVersion) },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.context.history(caller, a),
  }),
  tool({
    name: 'diff_context',
    title: 'Diff context',
    description: 'Unified diff of an entry between two of its versions.',
    scope: 'room',
    args: coreArgs(context.diff, {
      ...ref,
      from_version: 'Default previous; 0 is empty',
      to_version: 'Default current',
    }),
    output: {
      type: o.str,
      key: o.str,
      from_version: o.int,
      to_version: o.int,
      current_version: o.int,
      added: o.int,
      removed: o.int,
      patch: o.str,
    },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.context.diff(caller, a),
  }),
]
