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
)
