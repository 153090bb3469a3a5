import path from 'node:path';
import { z } from 'zod';
import { envSchema } from '../../core/config';
import { byCodePoint, cell, code, generatedPage, table } from './markdown';

// docs/reference/configuration.md from the zod schema every process validates its environment with
// (core/config.ts): each setting's name, type, default and description. A setting without a
// description is an error, so a new setting cannot ship undocumented.

const repoRoot = path.resolve(__dirname, '..', '..');

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  format?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
}

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return `one of ${schema.enum.map((v) => code(String(v))).join(', ')}`;
  if (schema.format === 'uri') return 'URL';
  const bounds: string[] = [];
  if (schema.minimum !== undefined) bounds.push(`≥ ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) bounds.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) bounds.push(`≤ ${schema.maximum}`);
  if (schema.minLength) bounds.push(`at least ${schema.minLength} characters`);
  const type = schema.type === 'integer' ? 'whole number' : (schema.type ?? 'string');
  return bounds.length ? `${type} (${bounds.join(', ')})` : type;
}

/** A default as a reader should see it: a folder of this checkout as its path from the checkout's root. */
function defaultOf(schema: JsonSchema): string {
  if (schema.default === undefined) return '—';
  const value = String(schema.default);
  if (value === '') return '(empty)';
  return code(value.startsWith(repoRoot + path.sep) ? path.relative(repoRoot, value) : value);
}

export function configurationReference(): string {
  const missing: string[] = [];
  const rows = Object.entries(envSchema.shape)
    .sort(([a], [b]) => byCodePoint(a, b))
    .map(([name, setting]) => {
      const schema = z.toJSONSchema(setting as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
      const description = (setting as z.ZodType).description;
      if (!description) missing.push(name);
      return [code(name), typeOf(schema), defaultOf(schema), cell(description ?? '')];
    });
  if (missing.length > 0) throw new Error(`settings without a description (add .describe() in the schema): ${missing.join(', ')}`);
  return generatedPage(
    'Configuration',
    'the settings schema in core/config.ts',
    [
      'Every Weft process (API, worker, the `weft` CLI) reads its settings from environment variables, declared and',
      'checked once, in `core/config.ts`, when the process starts. A value of the wrong type stops the process with the',
      "variable's name, and so does an unknown `WEFT_*` variable: a typo is an error, never silently ignored (`WEFT_` is",
      'reserved for settings, `WEFT_TEST_*` for the test suites).',
      '',
      'Where Shannon has its own name for a setting (`TOKEN_BUDGET_PER_TASK`, `WASI_MEMORY_LIMIT_MB`, ...), both are accepted',
      "and Weft's name wins when both are set.",
      '',
      'Besides the settings below:',
      '',
      '- `<TOOL_NAME>_RATE_LIMIT` (for example `PYTHON_EXECUTOR_RATE_LIMIT`): calls per minute per tenant of that tool, a whole number.',
      "- `<NAME>_FILE`: any secret a setting or a tool source names (a provider's `api_key_env`, a source's `token_env`, ...) is read",
      '  from the variable `<NAME>`, or from the file `<NAME>_FILE` names.',
      "- `TEMPORAL_TLS*`, `TEMPORAL_API_KEY`, `TEMPORAL_GRPC_META_*`, `TEMPORAL_PROFILE`, `TEMPORAL_CONFIG_FILE`: the Temporal SDK's own",
      '  environment configuration, which every process uses to connect to Temporal (see [Deploying](../guides/deploying.md)).',
    ],
    [table(['Variable', 'Type', 'Default', 'What it does'], rows)],
  );
}
