import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'crypto',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'https',
  'net',
  'os',
  'path',
  'process',
  'readline',
  'stream',
  'timers',
  'timers/promises',
  'url',
  'util',
  'worker_threads',
  'zlib',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/replay/histories/**', 'bin/**', '*.config.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no I/O, no Node built-ins.
    files: ['src/workflows/**/*.ts', 'src/core/**/*.ts', 'src/temporal/search-attributes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.flatMap((name) => [
            { name, message: 'Workflow code must stay deterministic: no Node built-ins.' },
            { name: `node:${name}`, message: 'Workflow code must stay deterministic: no Node built-ins.' },
          ]),
        },
      ],
    },
  },
);
