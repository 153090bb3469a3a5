import { Ajv, type ValidateFunction } from 'ajv';
import { ToolError, isVisibleTo, type ToolContext, type ToolDefinition, type ToolMetadata, type ToolOutcome } from './tool';
import { tokenBuckets, type TokenBuckets } from './token-bucket';
import type { ToolObserver } from './tool-metrics';
import { allowEveryTool, type ToolPolicy } from './tool-policy';
import { errorRateBreakers, type ErrorRateSettings } from './error-rate-breaker';

export interface ToolRegistry {
  /** Registers more tools (MCP and OpenAPI tools arrive at runtime); a name already taken is refused. */
  add(tools: readonly ToolDefinition[]): void;
  /** Unregisters tools (a source that was removed). */
  remove(names: readonly string[]): void;
  /** A tool by name; with a tenant, only a tool that tenant may use (another tenant's is unknown). */
  get(name: string, tenantId?: string): ToolMetadata | undefined;
  /** Every tool; with a tenant, those it may use (its own sources' and everyone's). */
  list(tenantId?: string): ToolMetadata[];
  /** Why these arguments are invalid for the tool, or undefined when they are valid. */
  checkArguments(name: string, args: unknown): string | undefined;
  /** Validates the arguments against the tool's schema, runs it, and types every failure. */
  execute(name: string, args: unknown, context: ToolContext): Promise<ToolOutcome>;
}

/** Ajv's errors in one line, each naming its field. */
export function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((e) => {
      const field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : (e.params as { missingProperty?: string }).missingProperty;
      return field ? `${field}: ${e.message}` : (e.message ?? 'invalid');
    })
    .join('; ');
}

/** The setting that overrides a tool's rate limit (the seed's `<TOOL_NAME>_RATE_LIMIT`, e.g. PYTHON_EXECUTOR_RATE_LIMIT). */
export const rateLimitSettingOf = (toolName: string) => `${toolName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_RATE_LIMIT`;

/** Per-tool rate limits (calls per minute per tenant) by their setting's name, as core/config.ts reads them. */
export type ToolRateLimits = Readonly<Record<string, number>>;

/** Imported schemas often name their JSON Schema dialect; validation does not depend on it. */
function withoutDialect({ $schema: _dialect, ...schema }: Record<string, unknown>): Record<string, unknown> {
  return schema;
}

export interface RegistryOptions {
  /** Overrides of the tools' own rate limits. */
  rateLimits?: ToolRateLimits;
  observer?: ToolObserver;
  policy?: ToolPolicy;
  /** The seed's ENFORCE_CB_* breaker per tool; none when absent. */
  errorRate?: ErrorRateSettings;
}

export function createToolRegistry(
  tools: ToolDefinition[],
  { rateLimits = {}, observer, policy = allowEveryTool, errorRate }: RegistryOptions = {},
): ToolRegistry {
  const breakers = errorRate ? errorRateBreakers(errorRate) : undefined;
  const ajv = new Ajv({ allErrors: true, strict: false });
  // Each tool's metadata is made once: tasks read the list at every start and step.
  const byName = new Map<string, { tool: ToolDefinition; metadata: ToolMetadata; validate: ValidateFunction; limit?: TokenBuckets }>();
  const metadataOf = ({ execute: _execute, ...metadata }: ToolDefinition): ToolMetadata => Object.freeze(metadata);
  const add = (more: readonly ToolDefinition[]) => {
    for (const tool of more) {
      if (byName.has(tool.name)) throw new Error(`a tool named ${tool.name} is already registered`);
      const perMinute = rateLimits[rateLimitSettingOf(tool.name)] ?? tool.rateLimitPerMinute;
      const registered = { ...tool, rateLimitPerMinute: perMinute };
      byName.set(tool.name, {
        tool: registered,
        metadata: metadataOf(registered),
        validate: ajv.compile(withoutDialect(tool.parameters)),
        ...(perMinute > 0 ? { limit: tokenBuckets(perMinute) } : {}),
      });
    }
  };
  add(tools);

  return {
    add,
    remove: (names) => names.forEach((name) => byName.delete(name)),
    get: (name, tenantId) => {
      const entry = byName.get(name);
      return entry && (tenantId === undefined || isVisibleTo(entry.tool, tenantId)) ? entry.metadata : undefined;
    },
    list: (tenantId) => [...byName.values()].filter((entry) => tenantId === undefined || isVisibleTo(entry.tool, tenantId)).map((entry) => entry.metadata),
    checkArguments(name, args) {
      const entry = byName.get(name);
      if (!entry) return `unknown tool ${name}`;
      return entry.validate(args) ? undefined : `invalid arguments for ${name}: ${describeErrors(entry.validate)}`;
    },
    async execute(name, args, context) {
      const entry = byName.get(name);
      // Another tenant's tool is as unknown as a missing one.
      if (!entry || !isVisibleTo(entry.tool, context.tenantId)) return { ok: false, error: { category: 'validation', message: `unknown tool ${name}` } };
      const refused = policy.refusal(name, context);
      if (refused) return { ok: false, error: { category: 'validation', message: refused } };
      const invalid = this.checkArguments(name, args);
      if (invalid) return { ok: false, error: { category: 'validation', message: invalid } };
      const admitted = entry.limit?.take(context.tenantId) ?? { ok: true };
      if (entry.limit) observer?.tokensLeft(name, context.tenantId, entry.limit.available(context.tenantId));
      if (!admitted.ok) {
        observer?.rateLimited(name);
        const message = `${name} is limited to ${entry.tool.rateLimitPerMinute} calls per minute; retry in ${Math.ceil(admitted.retryAfterMs / 1000)} s`;
        return { ok: false, error: { category: 'execution', message } };
      }
      const startedAt = performance.now();
      const call = () => run(entry.tool, args as Record<string, unknown>, context);
      const outcome = await (breakers ? breakers.run(name, call) : call());
      observer?.executed(name, outcome, (performance.now() - startedAt) / 1000, outcome.ok ? entry.tool.costPerUse : 0);
      return outcome;
    },
  };
}

/** Runs a tool under its timeout and types every failure. */
async function run(tool: ToolDefinition, args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome> {
  const timeout = AbortSignal.timeout(tool.timeoutMs);
  const signal = context.signal ? AbortSignal.any([context.signal, timeout]) : timeout;
  try {
    return { ok: true, content: await tool.execute(args, { ...context, signal }) };
  } catch (err) {
    if (err instanceof ToolError) return { ok: false, error: { category: err.category, message: err.message } };
    if (timeout.aborted) return { ok: false, error: { category: 'execution', message: `${tool.name} timed out after ${tool.timeoutMs} ms` } };
    // A cancelled task aborts its tool; that is not the tool's failure to report.
    if (context.signal?.aborted) throw err;
    return { ok: false, error: { category: 'execution', message: err instanceof Error ? err.message : String(err) } };
  }
}
