import { Ajv, type ValidateFunction } from 'ajv';
import { ToolError, type ToolContext, type ToolDefinition, type ToolMetadata, type ToolOutcome } from './tool';

export interface ToolRegistry {
  get(name: string): ToolMetadata | undefined;
  list(): ToolMetadata[];
  /** Why these arguments are invalid for the tool, or undefined when they are valid. */
  checkArguments(name: string, args: unknown): string | undefined;
  /** Validates the arguments against the tool's schema, runs it, and types every failure. */
  execute(name: string, args: unknown, context: ToolContext): Promise<ToolOutcome>;
}

function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((e) => {
      const field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : (e.params as { missingProperty?: string }).missingProperty;
      return field ? `${field}: ${e.message}` : (e.message ?? 'invalid');
    })
    .join('; ');
}

export function createToolRegistry(tools: ToolDefinition[]): ToolRegistry {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const byName = new Map(tools.map((tool) => [tool.name, { tool, validate: ajv.compile(tool.parameters) }]));
  if (byName.size !== tools.length) throw new Error('tool names must be unique');
  const metadataOf = ({ execute: _execute, ...metadata }: ToolDefinition): ToolMetadata => metadata;

  return {
    get: (name) => {
      const entry = byName.get(name);
      return entry ? metadataOf(entry.tool) : undefined;
    },
    list: () => tools.map(metadataOf),
    checkArguments(name, args) {
      const entry = byName.get(name);
      if (!entry) return `unknown tool ${name}`;
      return entry.validate(args) ? undefined : `invalid arguments for ${name}: ${describeErrors(entry.validate)}`;
    },
    async execute(name, args, context) {
      const entry = byName.get(name);
      if (!entry) return { ok: false, error: { category: 'validation', message: `unknown tool ${name}` } };
      const invalid = this.checkArguments(name, args);
      if (invalid) return { ok: false, error: { category: 'validation', message: invalid } };
      const timeout = AbortSignal.timeout(entry.tool.timeoutMs);
      const signal = context.signal ? AbortSignal.any([context.signal, timeout]) : timeout;
      try {
        return { ok: true, content: await entry.tool.execute(args as Record<string, unknown>, { ...context, signal }) };
      } catch (err) {
        if (err instanceof ToolError) return { ok: false, error: { category: err.category, message: err.message } };
        if (timeout.aborted) return { ok: false, error: { category: 'execution', message: `${name} timed out after ${entry.tool.timeoutMs} ms` } };
        // A cancelled task aborts its tool; that is not the tool's failure to report.
        if (context.signal?.aborted) throw err;
        return { ok: false, error: { category: 'execution', message: err instanceof Error ? err.message : String(err) } };
      }
    },
  };
}
