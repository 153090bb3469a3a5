import path from 'node:path';
import type { Pool } from 'pg';
import { builtinTools } from './builtin';
import { createToolRegistry, type ToolRateLimits, type ToolRegistry } from './registry';
import type { SecretSource } from '../secrets';
import { createDestinationPolicy } from './outbound/destination-policy';
import { createOutboundHttp, type OutboundHttp } from './outbound/outbound-http';
import { createPythonSandbox } from './python/python-sandbox';
import { watchSandboxPool } from './python/sandbox-metrics';
import { connectMcpServer, type McpServerConfig } from './mcp/mcp-server';
import { loadOpenApiSpec } from './openapi/openapi-spec';
import { openApiTools, type OpenApiSource } from './openapi/openapi-tools';
import { toolSources, type ToolSource } from './tool-sources';
import { followStoredToolSources } from './stored-tool-sources';
import { toolSourceKey, type StoredToolSource } from './tool-source-store';
import { confinedSpecFile, prefixedSecrets } from './runtime-source-rules';
import type { ToolMetrics } from './tool-metrics';
import { loadToolPolicy } from './tool-policy';
import { log as logger } from '../telemetry/logger';
import { braveProvider, searxngProvider, type SearchProvider } from './web-search/search-providers';
import type { WebSearchSettings } from './web-search/web-search-settings';
import type { ErrorRateSettings } from './error-rate-breaker';

export type { ToolRegistry } from './registry';

export interface OutboundSettings {
  httpFetchAllowedDomains: string[];
  mcpAllowedDomains: string[];
  openapiAllowedDomains: string[];
  breakerFailures: number;
  breakerRecoveryMs: number;
  timeoutMs: number;
  maxAttempts: number;
}

/** Outbound HTTP for one kind of tool, allowed to reach the hosts of its allowlist setting. */
export function outboundFor(setting: string, allowlist: readonly string[], settings: OutboundSettings, metrics?: ToolMetrics): OutboundHttp {
  const outbound = createOutboundHttp({
    policy: createDestinationPolicy(setting, allowlist),
    timeoutMs: settings.timeoutMs,
    breakerFailures: settings.breakerFailures,
    breakerRecoveryMs: settings.breakerRecoveryMs,
    maxAttempts: settings.maxAttempts,
  });
  metrics?.watch(outbound);
  return outbound;
}

export interface ToolSettings {
  workspaceDir: string;
  toolRateLimits: ToolRateLimits;
  outbound: OutboundSettings;
  sandbox: { memoryMb: number; timeoutMs: number; outputLimitBytes: number; poolSize: number; dataLimitBytes: number; programsPerTenant: number };
  /** Who may use which tool (YAML); every tool for everyone without one. */
  toolPolicyFile?: string;
  /** The provider web_search asks; no web_search without one. */
  webSearch?: WebSearchSettings;
  /** The seed's ENFORCE_CB_* error-rate breaker per tool. */
  toolErrorRate?: ErrorRateSettings;
}

/** web_search's provider, reaching only the host its URL names (listed, so a private instance works). */
function webSearchProvider(settings: ToolSettings, metrics?: ToolMetrics): SearchProvider | undefined {
  const search = settings.webSearch;
  if (!search) return undefined;
  const outbound = outboundFor('WEFT_WEB_SEARCH_URL', [new URL(search.url).hostname], settings.outbound, metrics);
  return search.provider === 'searxng' ? searxngProvider(search.url, outbound) : braveProvider(search.url, search.apiKey, outbound);
}

export interface ToolSourceSettings {
  /** Where tokens and keys named by sources are read. */
  secrets: SecretSource;
  mcpRateLimitDefault: number;
  mcpServers: McpServerConfig[];
  openApiSources: OpenApiSource[];
  openApiMaxSpecBytes: number;
  outbound: OutboundSettings;
  runtimeSources: { specDir?: string; secretPrefix: string };
}

/** The keys of the sources in configuration (runtime sources may not take them). */
export const configuredToolSourceKeys = (settings: Pick<ToolSourceSettings, 'mcpServers' | 'openApiSources'>) => [
  ...settings.mcpServers.map((server) => toolSourceKey('mcp', server.name)),
  ...settings.openApiSources.map((source) => toolSourceKey('openapi', source.name)),
];

/** How a source's secrets and spec file are read: as configured, or under the runtime sources' rules. */
interface LoadRules {
  secrets: SecretSource;
  specFile(file: string): string;
}

/**
 * Registers the tools of MCP servers and OpenAPI specs, from configuration and (with a database)
 * those registered at runtime, each as it becomes reachable; close() disconnects them all.
 */
export async function startToolSources(
  registry: ToolRegistry,
  settings: ToolSourceSettings,
  options: { database?: { url: string; pool: Pool }; metrics?: ToolMetrics } = {},
): Promise<{ close(): Promise<void> }> {
  const log = (line: string) => logger().info(line);
  const mcpHttp = outboundFor('MCP_ALLOWED_DOMAINS', settings.outbound.mcpAllowedDomains, settings.outbound, options.metrics);
  const openApiHttp = outboundFor('OPENAPI_ALLOWED_DOMAINS', settings.outbound.openapiAllowedDomains, settings.outbound, options.metrics);
  const configured: LoadRules = { secrets: settings.secrets, specFile: (file) => file };
  // A runtime source is held to its rules again when loaded, whatever its stored configuration says.
  const runtime: LoadRules = {
    secrets: prefixedSecrets(settings.secrets, settings.runtimeSources.secretPrefix),
    specFile: (file) => confinedSpecFile(file, settings.runtimeSources.specDir),
  };
  const mcp =
    (server: McpServerConfig, rules: LoadRules): ToolSource['load'] =>
    () =>
      connectMcpServer(server, mcpHttp, { secrets: rules.secrets, defaultRateLimit: settings.mcpRateLimitDefault });
  const openApi =
    (source: OpenApiSource, rules: LoadRules): ToolSource['load'] =>
    async () => {
      const spec = await loadOpenApiSpec(
        source.spec_url ? { url: source.spec_url } : { file: rules.specFile(source.spec_file!) },
        openApiHttp,
        settings.openApiMaxSpecBytes,
      );
      return { tools: openApiTools(spec, source, openApiHttp, rules.secrets) };
    };
  const sources = toolSources(registry, log);
  settings.mcpServers.forEach((server) => sources.add({ key: toolSourceKey('mcp', server.name), load: mcp(server, configured) }));
  settings.openApiSources.forEach((source) => sources.add({ key: toolSourceKey('openapi', source.name), load: openApi(source, configured) }));
  const storedSource = (stored: StoredToolSource): ToolSource => {
    const load = stored.kind === 'mcp' ? mcp(stored.config, runtime) : openApi(stored.config, runtime);
    // A tenant's source: its tools are that tenant's only.
    const owned = async () => {
      const loaded = await load();
      return stored.tenantId ? { ...loaded, tools: loaded.tools.map((tool) => ({ ...tool, tenantId: stored.tenantId })) } : loaded;
    };
    return { key: toolSourceKey(stored.kind, stored.name), load: owned };
  };
  const stored = options.database ? await followStoredToolSources(options.database.url, options.database.pool, sources, storedSource, log) : undefined;
  return {
    async close() {
      await stored?.close();
      await sources.close();
    },
  };
}

/**
 * The registry with Weft's tools. `warmSandbox` (a worker) starts the Python sandbox pool now, so
 * its first program finds one waiting; otherwise sandboxes start on the first program (the API,
 * which never runs tools, starts none).
 */
export function createWeftToolRegistry(settings: ToolSettings, metrics?: ToolMetrics, options: { warmSandbox?: boolean } = {}): ToolRegistry {
  const httpFetch = outboundFor('WEFT_HTTP_FETCH_ALLOWED_DOMAINS', settings.outbound.httpFetchAllowedDomains, settings.outbound, metrics);
  const sandbox = createPythonSandbox({ outputLimitBytes: settings.sandbox.outputLimitBytes, poolSize: settings.sandbox.poolSize });
  if (metrics) watchSandboxPool(metrics.registry, sandbox);
  if (options.warmSandbox)
    sandbox.prewarm().catch((err: unknown) => logger().warn({ err }, `python sandbox not warmed: ${err instanceof Error ? err.message : String(err)}`));
  const { memoryMb, timeoutMs, dataLimitBytes, programsPerTenant } = settings.sandbox;
  const python = { sandbox, memoryMb, timeoutMs, dataLimitBytes, programsPerTenant };
  const policy = loadToolPolicy(settings.toolPolicyFile);
  const webSearch = webSearchProvider(settings, metrics);
  const builtins = builtinTools({ workspaceRoot: path.resolve(settings.workspaceDir), httpFetch, python, ...(webSearch ? { webSearch } : {}) });
  return createToolRegistry(builtins, {
    rateLimits: settings.toolRateLimits,
    ...(metrics ? { observer: metrics } : {}),
    policy,
    ...(settings.toolErrorRate ? { errorRate: settings.toolErrorRate } : {}),
  });
}
