import { z } from 'zod';
import { telemetryEnvSchema, telemetrySettingsOf, type TelemetrySettings } from './telemetry-settings';
import { capacityEnvSchema, capacitySettingsOf, type CapacitySettings } from './capacity-settings';
import { catalogEnvSchema, catalogSettingsOf, type CatalogSettings } from './catalog-settings';
import { budgetEnvSchema, budgetSettingsOf } from './budget-settings';
import { apiEnvSchema } from './api-settings';
import { sandboxEnvSchema } from './sandbox-settings';
import { modelEnvSchema } from './model-settings';
import { toolEnvSchema } from './tool-settings';
import { errorRateEnvSchema, errorRateSettingsOf, type ErrorRateSettings } from './tools/error-rate-breaker';
import { webSearchEnvSchema, webSearchSettingsOf, type WebSearchSettings } from './tools/web-search/web-search-settings';
import { apiTlsOf, temporalConnectionOf, type ApiTlsFiles, type TemporalConnection } from './transport-settings';
import type { TaskSettings } from './orchestration/task-settings';
import { parseModelAliases, type ModelAliases } from './llm/model-aliases';
import { parseAllowlist } from './tools/outbound/destination-policy';
import type { OutboundSettings } from './tools';
import type { ToolRateLimits } from './tools/registry';
import { secretsFrom, type SecretSource } from './secrets';
import { parseMcpServers, type McpServerConfig } from './tools/mcp/mcp-server';
import { parseOpenApiSources, type OpenApiSource } from './tools/openapi/openapi-tools';
import { loadModelCatalog, singleProviderCatalog, firstChoice, type ModelCatalog } from './llm/model-catalog';

export { defaultToolSecretPrefix } from './tool-settings';

// Every setting Weft reads from the environment, validated once at process start.
// Workflow code never reads this: configuration reaches workflows through their input.
export const envSchema = telemetryEnvSchema
  .extend(capacityEnvSchema.shape)
  .extend(webSearchEnvSchema.shape)
  .extend(budgetEnvSchema.shape)
  .extend(errorRateEnvSchema.shape)
  .extend(catalogEnvSchema.shape)
  .extend(apiEnvSchema.shape)
  .extend(sandboxEnvSchema.shape)
  .extend(modelEnvSchema.shape)
  .extend(toolEnvSchema.shape)
  .extend({
    DATABASE_URL: z
      .string()
      .url()
      .default('postgres://postgres@127.0.0.1:5432/weft')
      .describe('Postgres connection URL; the database is created if missing and migrated when a process starts.'),
    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233').describe('The Temporal frontend (host:port). When set for `make up`, no dev server is started.'),
    TEMPORAL_NAMESPACE: z.string().default('default').describe('The Temporal namespace tasks run in.'),
    WEFT_TASK_QUEUE: z.string().default('weft-tasks').describe('The task queue the API starts workflows on and the workers poll.'),
    WEFT_WORKSPACE_DIR: z
      .string()
      .default('.state/workspaces')
      .describe('Root of the per-session workspaces of the file tools; the API reads it too, so in a deployment API and workers mount the same volume.'),
    WEFT_MAX_AGENTS: z.coerce
      .number()
      .int()
      .positive()
      .default(5)
      .describe("Agents of a COMPLEX task running at once (a request's `metadata.max_agents` overrides)."),
    WEFT_MAX_ITERATIONS: z.coerce
      .number()
      .int()
      .positive()
      .default(10)
      .describe("Model steps one agent may take (a request's `context.max_iterations` sets it, up to ten times this)."),
    WEFT_STEPS_PER_HISTORY: z.coerce
      .number()
      .int()
      .positive()
      .default(50)
      .describe("Model steps an agent's workflow takes before it continues as new (keeps Temporal histories short)."),
    WEFT_USER_MEMORY: z
      .enum(['on', 'off'])
      .default('off')
      .describe(
        "`on`: a completed task's long answer (500 characters or more) may leave a note in its user's memory files, through one more small-tier model call. `make up` turns it on with the demo model.",
      ),
    WEFT_APPROVAL_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(60 * 60 * 1000)
      .describe(
        "How long an approval waits for a decision before the task ends TIMEOUT (a request's `context.approval_timeout_seconds` overrides, up to 30 days).",
      ),
    WEFT_APPROVAL_COST_THRESHOLD_USD: z.coerce
      .number()
      .nonnegative()
      .default(0)
      .describe('Tasks estimated to cost more than this many dollars wait for approval (0: off).'),
    WEFT_WORKFLOW_BUNDLE: z
      .string()
      .optional()
      .describe(
        'A prebuilt workflow bundle (`npx tsx infra/build-workflow-bundle.ts out.js`); without one the worker bundles its workflows at start. `make up` and the image build one.',
      ),
    WEFT_SHUTDOWN_GRACE_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(30_000)
      .describe('How long a stopping worker lets running activities finish before handing them back to Temporal.'),
  });

/** Variables under Weft's own prefix that are no setting: a test's own (WEFT_TEST_*). */
const notSettings = /^WEFT_TEST_/;
const rateLimitSetting = /^([A-Z0-9_]+)_RATE_LIMIT$/;

/**
 * Settings the schema cannot list by name: an unknown WEFT_* variable is a typo (an error that says
 * so), and `<TOOL>_RATE_LIMIT` overrides a tool's rate limit with a whole number of calls a minute.
 */
function openEndedSettings(env: NodeJS.ProcessEnv): { problems: string[]; toolRateLimits: ToolRateLimits } {
  const known = new Set(Object.keys(envSchema.shape));
  const problems: string[] = [];
  const toolRateLimits: Record<string, number> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('WEFT_') && !known.has(name) && !notSettings.test(name))
      problems.push(`${name}: not a Weft setting (see docs/reference/configuration.md)`);
    if (!rateLimitSetting.test(name) || value === undefined || value === '') continue;
    const perMinute = Number(value);
    if (Number.isInteger(perMinute) && perMinute >= 0) toolRateLimits[name] = perMinute;
    else problems.push(`${name}: a tool's rate limit must be a whole number of calls per minute, got "${value}"`);
  }
  return { problems, toolRateLimits };
}

export interface WeftConfig extends TelemetrySettings, CapacitySettings, CatalogSettings {
  databaseUrl: string;
  /** `connection` carries the address, TLS and API key for Connection.connect and NativeConnection.connect. */
  temporal: { address: string; namespace: string; taskQueue: string; connection: TemporalConnection };
  /** Where the API listens (Shannon's ports by default: 50052, 50051, 8000 and 8080); the worker's metrics bind `host` too. */
  listen: {
    host: string;
    /** Orchestrator, Streaming, Session and ai.AIService. */
    port: number;
    agentPort: number;
    llmPort: number;
    /** REST and SSE. */
    httpPort: number;
    /** Largest gRPC message (and REST body), refused before it is parsed. */
    maxMessageBytes: number;
    /** How often an idle SSE stream gets a keep-alive comment. */
    sseKeepAliveMs: number;
    /** TLS on every API port (WEFT_TLS_CERT_FILE and WEFT_TLS_KEY_FILE), mTLS with WEFT_TLS_CLIENT_CA_FILE. */
    tls?: ApiTlsFiles;
  };
  /** API keys required on the front door; off only when explicitly set (the API then warns). */
  authEnabled: boolean;
  /** Calls one API key may make per minute (0: unlimited). */
  rateLimitPerMinute: number;
  /** What a SessionService session gets when its creator does not say. */
  sessions: { ttlSeconds: number; maxHistory: number };
  /** Providers, models, tiers, prices and resilience settings (WEFT_MODEL_CATALOG, else the WEFT_LLM_* settings). */
  catalog: ModelCatalog;
  llm: { cacheTtlSeconds: number };
  /** Model names clients may use for configured models (ai.AIService's default "venice-uncensored"). */
  modelAliases: ModelAliases;
  workspaceDir: string;
  /** How tools reach the outside: allowlists per kind, and the breaker, timeout and retry settings shared by all. */
  outbound: OutboundSettings;
  /** Who may use which tool (a YAML file); absent: every tool for everyone. */
  toolPolicyFile?: string;
  webSearch?: WebSearchSettings;
  toolErrorRate: ErrorRateSettings;
  /** Where tokens and keys named by tool sources and providers are read (a variable or its <NAME>_FILE). */
  secrets: SecretSource;
  /** `<TOOL>_RATE_LIMIT` overrides, by setting name. */
  toolRateLimits: ToolRateLimits;
  /** Calls per minute per tenant for MCP tools whose server names no limit. */
  mcpRateLimitDefault: number;
  /** MCP servers whose tools are registered at start (WEFT_MCP_SERVERS). */
  mcpServers: McpServerConfig[];
  /** OpenAPI specs whose operations are registered as tools at start (WEFT_OPENAPI_SOURCES). */
  openApiSources: OpenApiSource[];
  openApiMaxSpecBytes: number;
  /** What sources registered at runtime may reach and read: spec files in one folder, secrets under one prefix. */
  runtimeSources: { specDir?: string; secretPrefix: string };
  /**
   * The Python sandbox: memory cap and wall-clock timeout per program, bytes of stdout/stderr kept,
   * interpreters kept loaded and waiting, and the most bytes of allowed data files a program gets.
   */
  sandbox: { memoryMb: number; timeoutMs: number; outputLimitBytes: number; poolSize: number; dataLimitBytes: number; programsPerTenant: number };
  /** Each tenant's share: task submissions per minute and tasks running at once (0: unlimited). */
  tenantQuotas: { submitsPerMinute: number; maxRunningTasks: number };
  /** The largest query; how long SubmitTask with auto_decompose waits to answer with the routing and plan. */
  limits: { maxQueryBytes: number; routingWaitMs: number };
  /** Defaults every task starts with; a request may lower some of them. */
  task: TaskSettings;
  /** A prebuilt workflow bundle (infra/build-workflow-bundle.ts); without one the worker bundles at start. */
  workflowBundlePath?: string;
  shutdownGraceMs: number;
}

/** The model catalog: WEFT_MODEL_CATALOG's file, or the one provider the WEFT_LLM_* settings describe. */
function catalogOf(e: z.infer<typeof envSchema>, secrets: SecretSource): ModelCatalog {
  return e.WEFT_MODEL_CATALOG
    ? loadModelCatalog(e.WEFT_MODEL_CATALOG, secrets)
    : singleProviderCatalog(
        {
          ...(e.WEFT_LLM_BASE_URL ? { baseURL: e.WEFT_LLM_BASE_URL } : {}),
          ...(e.WEFT_LLM_API_KEY ? { apiKeyEnv: 'WEFT_LLM_API_KEY' } : e.OPENAI_API_KEY ? { apiKeyEnv: 'OPENAI_API_KEY' } : {}),
          timeoutMs: e.WEFT_LLM_TIMEOUT_MS,
          models: {
            SMALL: e.WEFT_MODEL_SMALL ?? e.WEFT_LLM_MODEL,
            MEDIUM: e.WEFT_MODEL_MEDIUM ?? e.WEFT_LLM_MODEL,
            LARGE: e.WEFT_MODEL_LARGE ?? e.WEFT_LLM_MODEL,
          },
          embeddingModel: e.WEFT_EMBEDDING_MODEL,
        },
        secrets,
      );
}

/** The settings a task starts with unless its request says otherwise. */
function taskDefaultsOf(e: z.infer<typeof envSchema>): TaskSettings {
  return {
    maxAgents: e.WEFT_MAX_AGENTS,
    maxIterations: e.WEFT_MAX_ITERATIONS,
    toolParallelism: e.WEFT_TOOL_PARALLELISM ?? e.TOOL_PARALLELISM ?? 4,
    stepsPerHistory: e.WEFT_STEPS_PER_HISTORY,
    ...(e.WEFT_USER_MEMORY === 'on' ? { rememberResults: true } : {}),
    approvalTimeoutMs: e.WEFT_APPROVAL_TIMEOUT_MS,
    approvalCostThresholdUsd: e.WEFT_APPROVAL_COST_THRESHOLD_USD,
    ...budgetSettingsOf(e),
    history: {
      compressAtTokens: e.WEFT_HISTORY_COMPRESS_AT_TOKENS,
      keepTurns: e.WEFT_HISTORY_KEEP_TURNS,
      ...(e.WEFT_HISTORY_MODEL ? { model: e.WEFT_HISTORY_MODEL } : {}),
    },
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): WeftConfig {
  const parsed = envSchema.safeParse(env);
  const { problems, toolRateLimits } = openEndedSettings(env);
  if (!parsed.success) problems.unshift(...parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  if (!parsed.success || problems.length > 0) throw new Error(`invalid configuration: ${problems.join('; ')}`);
  const e = parsed.data;
  const secrets = secretsFrom(env);
  const catalog = catalogOf(e, secrets);
  const tls = apiTlsOf({ certFile: e.WEFT_TLS_CERT_FILE, keyFile: e.WEFT_TLS_KEY_FILE, clientCaFile: e.WEFT_TLS_CLIENT_CA_FILE });
  return {
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.WEFT_TASK_QUEUE,
      connection: temporalConnectionOf(env, e.TEMPORAL_ADDRESS),
    },
    listen: {
      host: e.WEFT_GRPC_HOST,
      port: e.WEFT_GRPC_PORT,
      agentPort: e.WEFT_AGENT_GRPC_PORT,
      llmPort: e.WEFT_LLM_GRPC_PORT,
      httpPort: e.WEFT_HTTP_PORT,
      maxMessageBytes: e.WEFT_MAX_MESSAGE_BYTES,
      sseKeepAliveMs: e.WEFT_SSE_KEEPALIVE_MS,
      ...(tls ? { tls } : {}),
    },
    authEnabled: e.WEFT_AUTH === 'on',
    sessions: { ttlSeconds: e.WEFT_SESSION_TTL_SECONDS, maxHistory: e.WEFT_SESSION_MAX_HISTORY },
    rateLimitPerMinute: e.WEFT_RATE_LIMIT_PER_MINUTE,
    catalog,
    llm: { cacheTtlSeconds: e.WEFT_LLM_CACHE_TTL_SECONDS },
    modelAliases: parseModelAliases(e.WEFT_MODEL_ALIASES, firstChoice(catalog, 'MEDIUM')?.id ?? e.WEFT_LLM_MODEL),
    workspaceDir: e.WEFT_WORKSPACE_DIR,
    ...telemetrySettingsOf(e),
    ...capacitySettingsOf(e),
    ...catalogSettingsOf(e),
    ...(e.WEFT_TOOL_POLICY ? { toolPolicyFile: e.WEFT_TOOL_POLICY } : {}),
    ...webSearchSettingsOf(e, secrets),
    toolErrorRate: errorRateSettingsOf(e, e.MCP_CB_RECOVERY_SECONDS * 1000),
    secrets,
    toolRateLimits,
    mcpRateLimitDefault: e.MCP_RATE_LIMIT_DEFAULT,
    mcpServers: parseMcpServers(e.WEFT_MCP_SERVERS),
    openApiSources: parseOpenApiSources(e.WEFT_OPENAPI_SOURCES),
    openApiMaxSpecBytes: e.OPENAPI_MAX_SPEC_BYTES,
    runtimeSources: { ...(e.WEFT_TOOL_SPEC_DIR ? { specDir: e.WEFT_TOOL_SPEC_DIR } : {}), secretPrefix: e.WEFT_TOOL_SECRET_PREFIX },
    outbound: {
      httpFetchAllowedDomains: parseAllowlist(e.WEFT_HTTP_FETCH_ALLOWED_DOMAINS),
      mcpAllowedDomains: parseAllowlist(e.MCP_ALLOWED_DOMAINS),
      openapiAllowedDomains: parseAllowlist(e.OPENAPI_ALLOWED_DOMAINS),
      breakerFailures: e.MCP_CB_FAILURES,
      breakerRecoveryMs: e.MCP_CB_RECOVERY_SECONDS * 1000,
      timeoutMs: e.WEFT_TOOL_HTTP_TIMEOUT_MS,
      maxAttempts: e.WEFT_TOOL_HTTP_ATTEMPTS,
    },
    sandbox: {
      memoryMb: e.WEFT_SANDBOX_MEMORY_MB ?? e.WASI_MEMORY_LIMIT_MB ?? 512,
      timeoutMs: e.WEFT_SANDBOX_TIMEOUT_MS ?? (e.WASI_TIMEOUT_SECONDS ? Math.round(e.WASI_TIMEOUT_SECONDS * 1000) : 60_000),
      outputLimitBytes: e.WEFT_SANDBOX_OUTPUT_BYTES,
      poolSize: e.WEFT_SANDBOX_POOL_SIZE,
      dataLimitBytes: e.WEFT_SANDBOX_DATA_BYTES,
      programsPerTenant: e.WEFT_TENANT_SANDBOX_PROGRAMS,
    },
    tenantQuotas: { submitsPerMinute: e.WEFT_TENANT_SUBMITS_PER_MINUTE, maxRunningTasks: e.WEFT_TENANT_MAX_RUNNING_TASKS },
    limits: { maxQueryBytes: e.WEFT_MAX_QUERY_BYTES, routingWaitMs: e.WEFT_SUBMIT_ROUTING_WAIT_MS },
    task: taskDefaultsOf(e),
    ...(e.WEFT_WORKFLOW_BUNDLE ? { workflowBundlePath: e.WEFT_WORKFLOW_BUNDLE } : {}),
    shutdownGraceMs: e.WEFT_SHUTDOWN_GRACE_MS,
  };
}
