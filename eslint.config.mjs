import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// Every Node built-in, with and without the `node:` prefix, so a new one cannot slip in unnoticed.
const nodeBuiltins = builtinModules.flatMap((name) => (name.startsWith('node:') ? [name] : [name, `node:${name}`]));

// Words that name a feature. The kernel (the cycle as a function) must name none, not even in a string: features
// describe themselves to it instead (workflows/cycle/tool-handler.ts, CycleFeature).
export const FEATURE_WORDS = /subagent|investigation|stage|board|research/i;
const kernelMessage = 'The cycle kernel names no feature: a feature describes itself through CycleFeature instead.';

const sideEffectFree = (message, extraPatterns = []) => [
  'error',
  {
    paths: nodeBuiltins.map((name) => ({ name, message })),
    patterns: [
      {
        group: ['**/activities', '**/activities/**', '**/client', '**/clients/**', '**/cli/**', '**/dev-server/**'],
        allowTypeImports: true,
        message:
          'Workflow and core code run in the deterministic sandbox: import activities and clients as types only.',
      },
      {
        group: ['**/worker', '**/workers/**', '**/config', '**/config/**'],
        message: 'Worker and configuration code does not belong here.',
      },
      ...extraPatterns,
    ],
  },
];

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/replay/histories/**', 'bin/**', '*.config.js'],
  },
  ...tseslint.configs.recommended,
  {
    // Plain CommonJS, as a user writes a tools module or a worker of their own.
    files: ['**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
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
    // Shared by client, worker and workflow code, so bundled into workflows: deterministic, no Node built-ins.
    files: ['src/workflows/**/*.ts', 'src/common/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': sideEffectFree(
        'Workflow code must stay deterministic: no Node built-ins.',
      ),
    },
  },
  {
    // The cycle kernel runs every call through handlers that features register: it knows no feature, not even a type
    // or a message definition, and no identifier or string of it names one.
    files: ['src/workflows/cycle/**/*.ts', 'src/core/cycle/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/agent/**', '**/research/**', '**/staged/**', '**/messages/agent', '**/messages/research'],
              message: kernelMessage,
            },
            { group: ['**/messages/staged', '**/agent-cycle'], message: kernelMessage },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: `Identifier[name=${FEATURE_WORDS}]`, message: kernelMessage },
        { selector: `Literal[value=${FEATURE_WORDS}]`, message: kernelMessage },
        { selector: `TemplateElement[value.raw=${FEATURE_WORDS}]`, message: kernelMessage },
      ],
    },
  },
  {
    // Pure: no I/O, no clock, no Temporal; everything else builds on it.
    files: ['src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': sideEffectFree('Core modules are pure: no Node built-ins.', [
        {
          group: ['@temporalio/*', '**/common/**', '**/workflows/**'],
          message: 'Core modules are pure and stand alone.',
        },
      ]),
    },
  },
);
