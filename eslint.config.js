// Lint rules: typescript-eslint's recommended set plus the house rules (docs/architecture.md,
// Contributing) and the layers below.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'

// Who may import whom: a folder of src/ may import its own files and those of the folders listed.
// Transports (dashboard, http, mcp) above services (core, auth, realtime, search, webhooks) above
// the store; src/shared is the leaf every layer may use and that imports nothing of src; the CLI
// is an HTTP client and uses only src/shared. Not listed, because nothing may import them: the
// composition root, src/main.ts, src/node.ts, src/config.ts with src/config/, and src/ops/ (the
// root and the operator tools beside it may import anything). Type-only imports count: a type is
// a dependency too. docs/architecture.md draws this table; test/unit/layers.test.ts checks both.
export const LAYERS = {
  dashboard: ['http', 'mcp', 'search', 'webhooks', 'auth', 'realtime', 'core', 'store', 'shared'],
  http: ['mcp', 'search', 'webhooks', 'auth', 'realtime', 'core', 'store', 'shared'],
  mcp: ['search', 'webhooks', 'auth', 'realtime', 'core', 'store', 'shared'],
  search: ['realtime', 'core', 'store', 'shared'],
  webhooks: ['store', 'shared'],
  auth: ['store', 'shared'],
  realtime: ['core', 'store', 'shared'],
  core: ['store', 'shared'],
  store: ['shared'],
  shared: [],
  cli: ['shared'],
}
const STORE_CLIENT =
  'store.client is for src/store, the composition root and operator tools: add a repository method to the store.'
const ROOT_FOLDERS = ['config', 'ops']
const ROOT_FILES = ['main', 'node', 'config']

const REDIS_ONLY_IN_STORE = [
  { name: 'ioredis', message: 'Redis is reached through the store (src/store): add a repository method there.' },
  { name: 'cluster-key-slot', message: "Cluster slots are the store's business (src/store/subscriber.ts)." },
]

const SRC = resolve(import.meta.dirname, 'src')
const ROOT_MESSAGE =
  'Nothing imports the composition root: declare the narrow interface you need ' +
  '(a *Deps or *Settings type) and let src/node.ts hand it over.'

/** Where a path of src/ belongs: a layer (its folder), 'root' (the composition root), or undefined outside src. */
function placeOf(file) {
  const rel = relative(SRC, file)
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined
  const [first, ...rest] = rel.split(sep)
  if (rest.length === 0) return ROOT_FILES.includes(first.replace(/\.[a-z]+$/, '')) ? 'root' : first
  return ROOT_FOLDERS.includes(first) ? 'root' : first
}

/**
 * layers/one-way: every module a file of src/ names, however deep the file and however it names
 * it (import, export … from, import(), a type's import('…')), lands in a folder its layer may
 * import (LAYERS), never in the composition root; ioredis and cluster-key-slot only in the store.
 * A dynamic import() must name its module as a string, so the rule can check it.
 */
const oneWay = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const from = placeOf(context.filename)
    if (from === undefined || from === 'root') return {}
    const check = (node, spec) => {
      if (typeof spec !== 'string') {
        context.report({ node, message: 'import() names its module as a string literal, so lint can check its layer.' })
        return
      }
      const redis = REDIS_ONLY_IN_STORE.find((r) => r.name === spec)
      if (redis && from !== 'store') return context.report({ node, message: `'${spec}': ${redis.message}` })
      if (!spec.startsWith('.')) return
      const to = placeOf(resolve(dirname(context.filename), spec))
      if (to === undefined || to === from) return
      if (to === 'root') return context.report({ node, message: `'${spec}': ${ROOT_MESSAGE}` })
      const may = LAYERS[from] ?? []
      if (may.includes(to)) return
      const allowed = may.length === 0 ? 'nothing else of src' : may.map((f) => `src/${f}`).join(', ')
      context.report({
        node,
        message:
          `'${spec}': src/${from} may import ${allowed} ` +
          '(the layers: eslint.config.js LAYERS, docs/architecture.md)',
      })
    }
    const literal = (n) =>
      n && n.type === 'Literal'
        ? n.value
        : n?.type === 'TemplateLiteral' && n.expressions.length === 0
          ? n.quasis[0].value.cooked
          : null
    const fromSource = (node) => node.source && check(node, node.source.value)
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => check(node, literal(node.source)),
      TSImportType: (node) => check(node, literal(node.argument?.literal ?? node.argument)),
    }
  },
}

export default tseslint.config(
  // types/: third-party declarations kept as published (types/uWebSockets.js/README.md).
  { ignores: ['dist/', 'dist-bench/', 'node_modules/', '.tap/', 'data/', 'types/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'smart'],
      // Lines of at most 120 characters, comments and strings included (docs/architecture.md,
      // Contributing); test/unit/line-length.test.ts holds the Lua scripts to the same limit.
      'max-len': ['error', { code: 120 }],
    },
  },
  {
    // The store is the only Redis seam (src/store/store.ts): outside src/store nothing reaches for
    // a store's client (and nothing imports ioredis: REDIS_ONLY_IN_STORE below), nor maps a Redis
    // failure itself (toStoreError). The composition root and operator tools may.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/store/**', 'src/ops/**', 'src/node.ts', 'src/main.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='client'][object.name='store']",
          message: STORE_CLIENT,
        },
        {
          selector: "MemberExpression[property.name='client'][object.property.name='store']",
          message: STORE_CLIENT,
        },
        {
          selector: "ImportSpecifier[imported.name='toStoreError']",
          message: 'The store throws Redis failures as AppErrors (unavailable, store_full) itself: test their code.',
        },
      ],
    },
  },
  // The layers (docs/architecture.md): layers/one-way reads LAYERS.
  {
    files: ['src/config.ts', 'src/config/**'],
    rules: { 'no-restricted-imports': ['error', { paths: REDIS_ONLY_IN_STORE }] },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { layers: { rules: { 'one-way': oneWay } } },
    rules: { 'layers/one-way': 'error' },
  },
)
