// Shared var tools: small named values for flags and counters (long text belongs in context).
import { invalid } from '../../shared/errors.js'
import { varSchemas } from '../../core/vars.js'
import type { Core } from '../../core/index.js'
import { coreArgs, coreField, CORE_SETTINGS } from '../args.js'
import { toolsOf, type ToolDef } from '../tool.js'
import * as o from '../outputs.js'
import { z } from 'zod'

const vars = varSchemas(CORE_SETTINGS)
const varName = 'Var name, e.g. build.status'

/** What the var tools use. */
export interface VarToolDeps {
  core: Pick<Core, 'vars'>
}

const tool = toolsOf<VarToolDeps>()

export const varTools: ToolDef<VarToolDeps>[] = [
  tool({
    name: 'set_shared_var',
    title: 'Set shared var',
    description: 'Sets a small named value, or adds increment to a counter atomically; exactly one of the two.',
    scope: 'room',
    // Two core operations behind one tool: value goes to vars.set, increment to vars.increment's by.
    args: {
      name: coreField(vars.set, 'name', varName),
      value: coreField(vars.set, 'value', 'Small string', { optional: true }),
      increment: coreField(vars.increment, 'by', 'Add to the counter instead', { optional: true }),
      expected_version: coreField(vars.set, 'expected_version', 'Only if still at this version; 0: absent'),
    },
    output: { var: o.sharedVar },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: async ({ deps, caller }, a) => {
      const given = (['value', 'increment'] as const).filter((k) => a[k] !== undefined)
      if (given.length !== 1) {
        throw invalid(`value, increment: give exactly one of them (got ${given.length === 0 ? 'none' : 'both'})`, {
          field: 'value|increment',
        })
      }
      if (a.increment === undefined)
        return deps.core.vars.set(caller, { name: a.name, value: a.value, expected_version: a.expected_version })
      if (a.expected_version !== undefined) {
        throw invalid('expected_version: only with value; an increment is atomic and needs no version check', {
          field: 'expected_version',
        })
      }
      return deps.core.vars.increment(caller, { name: a.name, by: a.increment })
    },
  }),
  tool({
    name: 'get_shared_var',
    title: 'Get shared var',
    description: 'One shared var with its version and setter.',
    scope: 'room',
    args: coreArgs(vars.get, { name: varName }),
    output: { var: o.sharedVar },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.vars.get(caller, a),
  }),
  tool({
    name: 'list_shared_vars',
    title: 'List shared vars',
    description: 'Shared vars by name, with values.',
    scope: 'room',
    args: coreArgs(vars.list, { prefix: 'Only names starting with this' }),
    output: { vars: z.array(o.sharedVar) },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.vars.list(caller, a),
  }),
]
