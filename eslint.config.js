// Lint rules: typescript-eslint's recommended set plus the house rules of STYLE.md.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

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
    },
  },
  {
    // The store is the only Redis seam (src/store/store.ts): outside src/store nothing imports
    // ioredis or reaches for a store's client. The composition root and operator tools may.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/store/**', 'src/ops/**', 'src/node.ts', 'src/main.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'ioredis', message: 'Redis is reached through the store (src/store): add a repository method there.' },
            { name: 'cluster-key-slot', message: 'Cluster slots are the store\'s business (src/store/subscriber.ts).' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[property.name='client'][object.name='store']", message: 'store.client is for src/store, the composition root and operator tools: add a repository method to the store.' },
        { selector: "MemberExpression[property.name='client'][object.property.name='store']", message: 'store.client is for src/store, the composition root and operator tools: add a repository method to the store.' },
      ],
    },
  },
)
