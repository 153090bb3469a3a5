// Flat ESLint config. The workflow rules are the part that matters: workflow code runs in Temporal's
// deterministic sandbox, so Node built-ins and the non-workflow SDK packages must never reach it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`]);

// The doors of api/: gRPC (its server and its services, api/grpc/), and the HTTP doors.
const grpcDoor = ['grpc'];
const httpDoors = ['rest', 'shannon', 'openai'];
const grpcModules = {
  regex: '^@grpc/|(^|/)protos/',
  message: 'The task service and the HTTP doors other than REST speak no gRPC: the gRPC door parses protos.',
};

/** A relative import that reaches one of `folders` of api/ (from any depth below api/). */
const apiFolders = (folders) => `^(\\.\\./)+(${folders.join('|')})/`;

function apiDoorRules() {
  const rule = (files, folders, message, extra = []) => ({
    files,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ regex: apiFolders(folders), message }, ...extra] }],
    },
  });
  return [
    rule(['api/tasks/**/*.ts'], [...grpcDoor, ...httpDoors, 'http'], 'The task service imports no door.', [grpcModules]),
    rule(['api/http/**/*.ts'], [...grpcDoor, ...httpDoors], 'What the HTTP doors share imports no door.', [{ regex: '^@grpc/', message: 'HTTP has no gRPC.' }]),
    rule(['api/openai/**/*.ts'], [...grpcDoor, 'rest', 'shannon'], 'The OpenAI door imports no other door: use the task service (api/tasks/) or api/http/.', [
      grpcModules,
    ]),
    rule(['api/shannon/**/*.ts'], [...grpcDoor, 'rest', 'openai'], "Shannon's door imports no other door: use the task service (api/tasks/) or api/http/."),
    rule(['api/grpc/**/*.ts'], [...httpDoors, 'http'], 'The gRPC door imports no HTTP door: use the task service (api/tasks/).'),
  ];
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'protos/generated/',
      '.state/',
      '.tools/',
      'coverage/',
      'docs/.vitepress/dist/',
      'docs/.vitepress/cache/',
      'test/replay/builds/',
    ],
  },
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
  // api/'s doors and its task service (docs/internals/task-service.md): a door parses its protocol
  // into the service's requests and renders its answers; no door imports another, and the service
  // imports no door and nothing of gRPC. api/rest/ is not held yet: its routes are still gRPC calls.
  ...apiDoorRules(),
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
