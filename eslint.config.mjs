// Flat ESLint config. The workflow rules are the part that matters: workflow code runs in Temporal's
// deterministic sandbox, so Node built-ins and the non-workflow SDK packages must never reach it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`]);

export default tseslint.config(
  { ignores: ['node_modules/', 'protos/generated/', '.state/', '.tools/', 'coverage/', 'test/replay/builds/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Small files and functions a newcomer can read; tests may run longer.
    files: ['**/*.ts'],
    ignores: ['test/**'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // Settings are read once, in core/config.ts; only entry points and infra/ see the environment.
    files: ['**/*.ts'],
    ignores: ['core/config.ts', 'infra/**', '*/main.ts', 'cli/weft.ts', 'test/**', 'bench/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Declare the setting in core/config.ts and pass it down.' }],
    },
  },
  {
    // CommonJS by necessity: the sandbox's process may read nothing but itself and the interpreter.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code is deterministic: no Node built-ins.' })),
          patterns: [
            {
              group: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker', '@temporalio/testing'],
              message: 'Workflows may import @temporalio/workflow, @temporalio/common and types only.',
            },
            {
              // task-ref.ts names ids, run-context.ts a header, outcome-review.ts the answers to an unknown
              // outcome; none imports a value, so all three are safe in the sandbox.
              regex: '/(activities|api|workers)/|/core/(?!tasks/run/(task-ref|run-context|outcome-review)$)',
              allowTypeImports: true,
              message: 'Workflows see only the types of activities and core (and core/tasks/run/task-ref, run-context, outcome-review): use `import type`.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'No environment reads in workflow code.' }],
    },
  },
);
