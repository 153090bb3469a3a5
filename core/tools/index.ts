import path from 'node:path';
import { builtinTools } from './builtin';
import { createToolRegistry, type ToolRegistry } from './registry';
import { createDestinationPolicy } from './outbound/destination-policy';
import { createOutboundHttp, type OutboundHttp } from './outbound/outbound-http';
import { createPythonSandbox } from './python/python-sandbox';
import { connectMcpServer, type McpServerConfig } from './mcp/mcp-server';
import { loadOpenApiSpec } from './openapi/openapi-spec';
import { openApiTools, type OpenApiSource } from './openapi/openapi-tools';
import { registerToolSources } from './tool-sources';
import type { ToolMetrics } from './tool-metrics';
import { loadToolPolicy } from './tool-policy';

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
  outbound: OutboundSettings;
  sandbox: { memoryMb: number; timeoutMs: number; outputLimitBytes: number };
  /** Who may use which tool (YAML); every tool for everyone without one. */
  toolPolicyFile?: string;
}

export interface ToolSourceSettings {
  mcpServers: McpServerConfig[];
  openApiSources: OpenApiSource[];
  openApiMaxSpecBytes: number;
  outbound: OutboundSettings;
}

/** Registers the tools of the configured MCP servers and OpenAPI specs as each becomes reachable; close() disconnects. */
export function registerConfiguredToolSources(registry: ToolRegistry, settings: ToolSourceSettings, env: NodeJS.ProcessEnv = process.env, metrics?: ToolMetrics) {
  const mcp = outboundFor('MCP_ALLOWED_DOMAINS', settings.outbound.mcpAllowedDomains, settings.outbound, metrics);
  const openApi = outboundFor('OPENAPI_ALLOWED_DOMAINS', settings.outbound.openapiAllowedDomains, settings.outbound, metrics);
  return registerToolSources(
    registry,
    [
      ...settings.mcpServers.map((server) => ({ label: `MCP server ${server.name}`, load: () => connectMcpServer(server, mcp, env) })),
      ...settings.openApiSources.map((source) => ({
        label: `OpenAPI source ${source.name}`,
        load: async () => {
          const spec = await loadOpenApiSpec(source.spec_url ? { url: source.spec_url } : { file: source.spec_file! }, openApi, settings.openApiMaxSpecBytes);
          return { tools: openApiTools(spec, source, openApi, env) };
        },
      })),
    ],
    (line) => console.log(line),
  );
}

export function createWeftToolRegistry(settings: ToolSettings, env: NodeJS.ProcessEnv = process.env, metrics?: ToolMetrics): ToolRegistry {
  const httpFetch = outboundFor('WEFT_HTTP_FETCH_ALLOWED_DOMAINS', settings.outbound.httpFetchAllowedDomains, settings.outbound, metrics);
  // Sandbox processes start on the first program (the API, which never runs tools, starts none).
  const sandbox = createPythonSandbox({ outputLimitBytes: settings.sandbox.outputLimitBytes });
  const python = { sandbox, memoryMb: settings.sandbox.memoryMb, timeoutMs: settings.sandbox.timeoutMs };
  const policy = loadToolPolicy(settings.toolPolicyFile);
  return createToolRegistry(builtinTools({ workspaceRoot: path.resolve(settings.workspaceDir), httpFetch, python }), { env, ...(metrics ? { observer: metrics } : {}), policy });
}
