// ESLint flat config: typescript-eslint's recommended rules, the project's import boundaries (README, "Layout"),
// no import cycles (scripts/lint/no-import-cycle.mjs), and eslint-config-prettier last so formatting is Prettier's
// alone. One type-checked rule, no-floating-promises (as Temporal's samples use for workflows), runs on the source
// folders only (api/, domain/, workflows/, worker/, activities/), through typescript-eslint's project service: type
// information costs a lint several seconds (it took 4 s without it, 15 s with it on every folder), so tests, benches
// and scripts keep the syntax rules; `npm run typecheck` remains the type gate for all of them.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier/flat';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import local from './scripts/lint/no-import-cycle.mjs';

/** Top-level folders that only tooling may import: production code never reaches into them. */
const TOOLING = ['scripts', 'test', 'bench'];

/**
 * A pattern for `@typescript-eslint/no-restricted-imports` that refuses relative imports of the given top-level
 * folders, at any depth (`../api/x`, `../../api/x`). No folder inside api/, domain/, activities/ or workflows/ is
 * named like a top-level one, so the relative spelling identifies the folder.
 */
function folders({ names, message, allowTypeImports = false }) {
  return { regex: `^(\\.\\./)+(${names.join('|')})(/|$)`, message, allowTypeImports };
}

/** Node's built-in modules, bare and with the `node:` prefix (the workflow sandbox has none of them). */
const NODE_BUILTINS = builtinModules.filter((name) => !name.startsWith('_'));
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * What workflows may import: values only from workflows/ itself, the two Temporal packages the sandbox provides and
 * the sandbox half of Temporal's OpenTelemetry interceptors (`@temporalio/interceptors-opentelemetry/lib/workflow`,
 * for workflows/tracing.ts);
 * `import type` from activities/ and domain/ (types are erased, so the bundle never runs that code); nothing from Node.
 * The catch-all pattern leaves out what the other entries report, so no import is reported twice.
 */
const WORKFLOW_IMPORTS = {
  paths: NODE_BUILTINS.flatMap((name) => [name, `node:${name}`]).map((name) => ({
    name,
    message: "Workflows run in Temporal's sandbox, which has no Node built-ins: do this in an activity.",
  })),
  patterns: [
    folders({
      names: ['activities', 'domain'],
      allowTypeImports: true,
      message:
        'Workflows take only types (`import type`) from activities/ and domain/: values would run in the sandbox. ' +
        'Move what the workflow needs to workflows/.',
    }),
    {
      regex:
        '^(?!\\./|@temporalio/(workflow|common|interceptors-opentelemetry/lib/workflow)$|\\.\\./(activities|domain)(/|$)|node:|' +
        `(${NODE_BUILTINS.map(escapeRegex).join('|')})$)`,
      message:
        'Workflows import only from workflows/ itself, @temporalio/workflow, @temporalio/common and ' +
        '@temporalio/interceptors-opentelemetry/lib/workflow (and types from activities/ and domain/).',
    },
  ],
};

export default defineConfig([
  { ignores: ['dist/', '.data/', '.cache/', 'bench/results/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.ts'],
    rules: {
      // Tests, benches and scripts may still say `any` (JSON bodies of responses, fixtures); the source folders may
      // not (below). Strict mode refuses implicit any everywhere.
      '@typescript-eslint/no-explicit-any': 'off',
      // `_name` marks a binding kept on purpose (a callback's signature); `{ id, ...rest }` drops a property.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The source folders (see the header): a promise nobody awaits or catches is an unhandled rejection waiting to
    // happen, and `any` hides what crosses a boundary (say `unknown` and narrow it, or type it: weaviate/properties.ts).
    files: ['api/**/*.ts', 'domain/**/*.ts', 'workflows/**/*.ts', 'worker/**/*.ts', 'activities/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // No module imports itself through others, types included (scripts/lint/no-import-cycle.mjs).
    files: ['**/*.ts'],
    plugins: { local },
    rules: { 'local/no-import-cycle': 'error' },
  },
  {
    files: ['domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            folders({
              names: ['api', 'activities', 'workflows', 'worker', ...TOOLING],
              message:
                'The domain is shared by the API and the worker and imports neither of them: ' +
                'move what it needs into domain/.',
            }),
            {
              // @temporalio/common is allowed: ApplicationFailure is how the domain says a failure is not worth
              // retrying (InvalidInput, InputTooCostly; domain/failures.ts), a plain class that needs no Temporal
              // context. The activity context, the client and the worker stay outside: the domain reports
              // progress through its Progress port (domain/progress.ts; activities/progress.ts binds it).
              regex: '^@temporalio/(?!common$)',
              message:
                'The domain runs outside Temporal too (API, benches, tests): take progress as a Progress ' +
                '(domain/progress.ts) and leave @temporalio/* but @temporalio/common to activities/, workflows/ and api/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['activities/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            folders({
              names: ['api', 'workflows', 'worker', ...TOOLING],
              message: 'Activities are thin bindings of domain/ functions: import from domain/ only.',
            }),
          ],
        },
      ],
    },
  },
  {
    files: ['api/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            folders({
              names: ['activities', 'worker', ...TOOLING],
              message:
                'The API imports domain/ and, for types and names, workflows/; activities run only in the worker.',
            }),
          ],
        },
      ],
    },
  },
  {
    // The API process's composition root also starts the process's ask worker (worker/ask-worker.ts, eager asks).
    files: ['api/server.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            folders({
              names: ['activities', ...TOOLING],
              message:
                'The API process starts its ask worker through worker/ask-worker.ts, never activities/ directly.',
            }),
          ],
        },
      ],
    },
  },
  {
    files: ['worker/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            folders({ names: ['api', ...TOOLING], message: 'The worker does not import the API or tooling.' }),
          ],
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', WORKFLOW_IMPORTS] },
  },
  prettier,
]);
