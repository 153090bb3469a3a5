// A tool as the platform sees it: the seed's metadata plus the function that runs it.

export type JsonSchema = Record<string, unknown>;

/**
 * What running a tool again does. `idempotent`: nothing new (reads, pure functions), so it is
 * retried freely. `keyed`: the tool receives a key stable across retries of one call (OpenAPI's
 * Idempotency-Key header), so the far side can recognise a repeat. `at_most_once`: never run again
 * once it may have started; an interrupted call's outcome is recorded as unknown instead.
 */
export type Idempotency = 'idempotent' | 'keyed' | 'at_most_once';

export interface ToolMetadata {
  name: string;
  /** Semantic version. */
  version: string;
  description: string;
  category: string;
  parameters: JsonSchema;
  timeoutMs: number;
  /** Memory a run may use; enforced where the tool runs in its own process (the Python sandbox). */
  memoryLimitMb: number;
  /** Calls per minute per tenant (a token bucket); 0 is unlimited. `<NAME>_RATE_LIMIT` overrides it. */
  rateLimitPerMinute: number;
  /** USD per call, charged to the task's cost. */
  costPerUse: number;
  /** Needs human approval (or an admin caller) before it runs. */
  dangerous: boolean;
  /** Runs only with the calling user's own credentials. */
  requiresAuth: boolean;
  /** Runs isolated from the host (no network, no writes). */
  sandboxed: boolean;
  sessionAware: boolean;
  idempotency: Idempotency;
  /** The tenant whose runtime source brought the tool: only its tasks see and call it. Absent: every tenant's. */
  tenantId?: string;
}

/** Whether a tenant may see and call a tool. */
export const isVisibleTo = (tool: Pick<ToolMetadata, 'tenantId'>, tenantId: string) => tool.tenantId === undefined || tool.tenantId === tenantId;

/** A tool's metadata with the seed's defaults for what it does not say. */
export function toolMetadata(
  metadata: Pick<ToolMetadata, 'name' | 'version' | 'description' | 'category' | 'parameters'> & Partial<ToolMetadata>,
): ToolMetadata {
  return {
    timeoutMs: 30_000,
    memoryLimitMb: 128,
    rateLimitPerMinute: 60,
    costPerUse: 0,
    dangerous: false,
    requiresAuth: false,
    sandboxed: false,
    sessionAware: false,
    idempotency: 'idempotent',
    ...metadata,
  };
}

/** Named scalar values a task carries to its tools' vendor adapters (context.prompt_params). */
export type PromptParams = Record<string, string | number | boolean>;

export interface ToolContext {
  tenantId: string;
  /** The user whose task calls the tool, and their roles (the policy and per-user credentials read them). */
  userId: string;
  roles: readonly string[];
  /** The task's own, lower memory cap for tools that run in their own process. */
  memoryLimitMb?: number;
  sessionId: string;
  taskId: string;
  /** The same for every attempt of one tool call: a keyed tool sends it so a repeat is recognised. */
  idempotencyKey?: string;
  /** The task's context.prompt_params, which vendor adapters may put into requests. */
  promptParams?: Readonly<PromptParams>;
  signal?: AbortSignal;
}

export interface ToolDefinition extends ToolMetadata {
  execute(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

/** `<source>_<name>` for a tool from an MCP server or OpenAPI spec, as every model provider accepts (^[A-Za-z0-9_-]{1,64}$). */
export const sourcedToolName = (source: string, name: string) => `${source}_${name}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

/**
 * The seed's four error categories, surfaced to agents as typed tool results, and Weft's
 * `outcome_unknown`: an at-most-once call was interrupted after it may have started, and was not run again.
 */
export type ToolErrorCategory = 'validation' | 'execution' | 'network' | 'circuit_open' | 'outcome_unknown';

export class ToolError extends Error {
  constructor(
    readonly category: ToolErrorCategory,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export type ToolOutcome = { ok: true; content: unknown } | { ok: false; error: { category: ToolErrorCategory; message: string } };
