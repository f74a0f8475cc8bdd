// What a Lua script of lua/ can do to Redis, read from its source (includes expanded) with a Lua
// parser: every redis.call/pcall it can reach, through the local functions it calls, with the
// command and the key resolved where the code names them (a string literal, `R.k.<name>`,
// `K.<name>`, `KEYS[n]`, `KEYS[ROOM_KEY_COUNT + n]`, or a local or parameter bound to one of
// those). A may-analysis: both branches of an `if`, every loop body once, and every value a
// variable is ever given, so it finds every call the script can make, and perhaps more. The
// effects test (test/unit/script-effects.test.ts) compares what it finds with each header.
import luaparse from 'luaparse'

/** One redis.call a script can make: the command and key as resolved ('?' when the code does not say). */
export interface RedisCallSite {
  /** Upper case; '?' when computed. */
  command: string
  /** A name of the script's key set (`tasks`, `users`), `KEYS[n]`, `KEYS[room+n]`, or '?'. */
  key: string
  /** The first argument after the key, when it is a string literal (a hash field). */
  field?: string
  /** The local functions the call is reached through, outermost first ([] in the script's own body). */
  via: string[]
}

// A syntax node as luaparse gives it: the analysis reads only the fields below.
type Node = { type: string } & Record<string, unknown>

type Binding = { fn: Node; scope: Scope } | { expr: Node; scope: Scope }

class Scope {
  private readonly names = new Map<string, Binding[]>()
  constructor(readonly parent?: Scope) {}
  declare(name: string, b: Binding): void {
    this.names.set(name, [b])
  }
  assign(name: string, b: Binding): void {
    this.find(name)?.push(b)
  }
  lookup(name: string): Binding[] {
    return this.find(name) ?? []
  }
  /** The bindings of the nearest scope that declares `name`. */
  private find(name: string): Binding[] | undefined {
    return this.names.get(name) ?? this.parent?.find(name)
  }
}

type Value = { str: string } | { key: string } | { unknown: true }

/** The value of a local declared without one, a loop variable, a parameter not passed. */
const UNSET: Node = { type: 'Unset' }

const nodes = (v: unknown): Node[] => (Array.isArray(v) ? (v as Node[]) : [])
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && typeof (v as Node).type === 'string'
const literal = (n: Node): string | undefined =>
  n.type === 'StringLiteral' ? (n.raw as string).replace(/^(['"])([\s\S]*)\1$/, '$2') : undefined

/** Every redis call `source` can make. `keyNames`: the names of its key set (ROOM_KEYS, ACCOUNT_KEYS). */
export function redisCalls(source: string, keyNames: readonly string[]): RedisCallSite[] {
  const chunk = luaparse.parse(source, { luaVersion: '5.1' }) as unknown as Node
  const names = new Set(keyNames)
  const out = new Map<string, RedisCallSite>()
  const stack: Node[] = []

  function values(n: Node | undefined, scope: Scope, depth = 0): Value[] {
    if (!n || depth > 30) return [{ unknown: true }]
    const s = literal(n)
    if (s !== undefined) return [{ str: s }]
    switch (n.type) {
      case 'Identifier':
        return resolveName(n.name as string, scope, depth)
      case 'MemberExpression': {
        const name = (n.identifier as Node).name as string
        const base = n.base as Node
        const named =
          base.type === 'Identifier' || (base.type === 'MemberExpression' && (base.identifier as Node).name === 'k')
        return named && names.has(name) ? [{ key: name }] : [{ unknown: true }]
      }
      case 'IndexExpression': {
        const base = n.base as Node
        const index = n.index as Node
        if (base.type !== 'Identifier' || base.name !== 'KEYS') return [{ unknown: true }]
        if (index.type === 'NumericLiteral') return [{ key: `KEYS[${index.value as number}]` }]
        const own =
          index.type === 'BinaryExpression' &&
          (index.left as Node).type === 'Identifier' &&
          (index.left as Node).name === 'ROOM_KEY_COUNT' &&
          (index.right as Node).type === 'NumericLiteral'
        return [{ key: own ? `KEYS[room+${(index.right as Node).value as number}]` : '?' }]
      }
      case 'LogicalExpression':
        return [...values(n.left as Node, scope, depth + 1), ...values(n.right as Node, scope, depth + 1)]
      default:
        return [{ unknown: true }]
    }
  }

  function resolveName(name: string, scope: Scope, depth: number): Value[] {
    const bound = scope.lookup(name)
    if (bound.length === 0) return [{ unknown: true }]
    return bound.flatMap((b) => ('expr' in b ? values(b.expr, b.scope, depth + 1) : [{ unknown: true }]))
  }

  function record(args: Node[], scope: Scope): void {
    const via = stack.map((f) => ((f.identifier as Node | null)?.name as string | undefined) ?? '(anonymous)')
    const field = args[2] ? literal(args[2]) : undefined
    for (const c of values(args[0], scope)) {
      for (const k of args[1] ? values(args[1], scope) : [{ unknown: true } as Value]) {
        const command = 'str' in c ? c.str.toUpperCase() : '?'
        const key = 'key' in k ? k.key : 'str' in k ? k.str : '?'
        const site: RedisCallSite = { command, key, via, ...(field !== undefined ? { field } : {}) }
        out.set(JSON.stringify(site), site)
      }
    }
  }

  function callFunction(fn: Node, defScope: Scope, args: Node[], callerScope: Scope): void {
    if (stack.includes(fn)) return
    const scope = new Scope(defScope)
    nodes(fn.parameters).forEach((p, i) => {
      if (p.type === 'Identifier')
        scope.declare(p.name as string, args[i] ? { expr: args[i], scope: callerScope } : { expr: UNSET, scope })
    })
    stack.push(fn)
    block(nodes(fn.body), scope)
    stack.pop()
  }

  function call(n: Node, scope: Scope): void {
    const args = n.type === 'CallExpression' ? nodes(n.arguments) : [n.argument as Node]
    for (const a of args) expr(a, scope)
    const base = n.base as Node
    if (
      base.type === 'MemberExpression' &&
      (base.base as Node).type === 'Identifier' &&
      (base.base as Node).name === 'redis' &&
      ['call', 'pcall'].includes((base.identifier as Node).name as string)
    ) {
      record(args, scope)
      return
    }
    expr(base, scope)
    if (base.type !== 'Identifier') return
    for (const b of scope.lookup(base.name as string)) if ('fn' in b) callFunction(b.fn, b.scope, args, scope)
  }

  function expr(n: unknown, scope: Scope): void {
    if (!isNode(n)) return
    if (n.type === 'CallExpression' || n.type === 'StringCallExpression' || n.type === 'TableCallExpression') {
      call(n, scope)
      return
    }
    if (n.type === 'FunctionDeclaration') {
      // An anonymous function (a sort's comparator): taken as run where it is written.
      callFunction(n, scope, [], scope)
      return
    }
    for (const [k, v] of Object.entries(n)) {
      if (k === 'type') continue
      if (Array.isArray(v)) for (const c of v) expr(c, scope)
      else expr(v, scope)
    }
  }

  function block(body: Node[], scope: Scope): void {
    for (const st of body) statement(st, scope)
  }

  function statement(st: Node, scope: Scope): void {
    switch (st.type) {
      case 'FunctionDeclaration': {
        const id = st.identifier as Node | null
        if (id?.type === 'Identifier') {
          if (st.isLocal) scope.declare(id.name as string, { fn: st, scope })
          else scope.assign(id.name as string, { fn: st, scope })
        }
        return
      }
      case 'LocalStatement':
      case 'AssignmentStatement': {
        const init = nodes(st.init)
        for (const e of init) if (e.type !== 'FunctionDeclaration') expr(e, scope)
        nodes(st.variables).forEach((v, i) => {
          if (v.type !== 'Identifier') {
            expr(v, scope)
            return
          }
          const e = init[i]
          const b: Binding | undefined = e
            ? e.type === 'FunctionDeclaration'
              ? { fn: e, scope }
              : { expr: e, scope }
            : undefined
          if (st.type === 'LocalStatement') scope.declare(v.name as string, b ?? { expr: UNSET, scope })
          else if (b) scope.assign(v.name as string, b)
        })
        return
      }
      case 'IfStatement':
        for (const c of nodes(st.clauses)) {
          expr(c.condition, scope)
          block(nodes(c.body), new Scope(scope))
        }
        return
      case 'ForNumericStatement':
      case 'ForGenericStatement': {
        const inner = new Scope(scope)
        for (const k of ['start', 'end', 'step']) expr(st[k], scope)
        for (const it of nodes(st.iterators)) expr(it, scope)
        const vars = st.type === 'ForNumericStatement' ? [st.variable as Node] : nodes(st.variables)
        for (const v of vars) inner.declare(v.name as string, { expr: UNSET, scope: inner })
        block(nodes(st.body), inner)
        return
      }
      case 'WhileStatement':
      case 'RepeatStatement':
        expr(st.condition, scope)
        block(nodes(st.body), new Scope(scope))
        return
      case 'DoStatement':
        block(nodes(st.body), new Scope(scope))
        return
      default:
        expr(st, scope)
    }
  }

  block(nodes(chunk.body), new Scope())
  return [...out.values()]
}
