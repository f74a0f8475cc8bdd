// Lint rules: typescript-eslint's recommended set plus the house rules (docs/architecture.md,
// Contributing) and the layers below.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

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
  webhooks: ['core', 'store', 'shared'],
  auth: ['core', 'store', 'shared'],
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

/**
 * One config object per layer and folder depth, with ESLint's own no-restricted-imports: a file
 * `depth` folders below src/ names a folder X of src as exactly '../' x depth + 'X/...', so the
 * patterns match the folder an import lands in, not a look-alike string. (Flat config replaces a
 * rule's options per object rather than merging them, so each object restates the Redis paths.)
 */
function layerRules() {
  const out = []
  for (const [layer, may] of Object.entries(LAYERS)) {
    const banned = [...Object.keys(LAYERS), ...ROOT_FOLDERS].filter((f) => f !== layer && !may.includes(f))
    const allowed = may.length === 0 ? 'nothing else of src' : may.map((f) => `src/${f}`).join(', ')
    for (const depth of [1, 2, 3]) {
      const up = `(?:\\.\\./){${depth}}`
      out.push({
        files: [`src/${layer}/${'*/'.repeat(depth - 1)}*.{ts,tsx}`],
        rules: {
          'no-restricted-imports': [
            'error',
            {
              paths: layer === 'store' ? [] : REDIS_ONLY_IN_STORE,
              patterns: [
                {
                  regex: `^${up}(?:${banned.join('|')})/`,
                  message:
                    `src/${layer} may import ${allowed} ` +
                    '(the layers: eslint.config.js LAYERS, docs/architecture.md).',
                },
                {
                  regex: `^${up}(?:${ROOT_FILES.join('|')})\\.js$`,
                  message:
                    'Nothing imports the composition root: declare the narrow interface you need ' +
                    '(a *Deps or *Settings type) and let src/node.ts hand it over.',
                },
              ],
            },
          ],
        },
      })
    }
  }
  return out
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
    // a store's client (and nothing imports ioredis: REDIS_ONLY_IN_STORE below). The composition
    // root and operator tools may.
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
      ],
    },
  },
  // The layers (docs/architecture.md): rules generated from LAYERS.
  {
    files: ['src/config.ts', 'src/config/**'],
    rules: { 'no-restricted-imports': ['error', { paths: REDIS_ONLY_IN_STORE }] },
  },
  ...layerRules(),
)
