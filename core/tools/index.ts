import path from 'node:path';
import { builtinTools } from './builtin';
import { createToolRegistry, type ToolRegistry } from './registry';
import { createDestinationPolicy } from './outbound/destination-policy';
import { createOutboundHttp, type OutboundHttp } from './outbound/outbound-http';
import { createPythonSandbox } from './python/python-sandbox';
import type { McpServerConfig } from './mcp/mcp-server';
import { registerMcpServers } from './mcp/mcp-servers';

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
export function outboundFor(setting: string, allowlist: readonly string[], settings: OutboundSettings): OutboundHttp {
  return createOutboundHttp({
    policy: createDestinationPolicy(setting, allowlist),
    timeoutMs: settings.timeoutMs,
    breakerFailures: settings.breakerFailures,
    breakerRecoveryMs: settings.breakerRecoveryMs,
    maxAttempts: settings.maxAttempts,
  });
}

export interface ToolSettings {
  workspaceDir: string;
  outbound: OutboundSettings;
  sandbox: { memoryMb: number; timeoutMs: number; outputLimitBytes: number };
}

/** Registers the configured MCP servers' tools (as they become reachable); close() disconnects them. */
export function registerConfiguredMcpServers(registry: ToolRegistry, settings: { mcpServers: McpServerConfig[]; outbound: OutboundSettings }, env: NodeJS.ProcessEnv = process.env) {
  const outbound = outboundFor('MCP_ALLOWED_DOMAINS', settings.outbound.mcpAllowedDomains, settings.outbound);
  return registerMcpServers(registry, settings.mcpServers, outbound, env, (line) => console.log(line));
}

export function createWeftToolRegistry(settings: ToolSettings, env: NodeJS.ProcessEnv = process.env): ToolRegistry {
  const httpFetch = outboundFor('WEFT_HTTP_FETCH_ALLOWED_DOMAINS', settings.outbound.httpFetchAllowedDomains, settings.outbound);
  // Sandbox processes start on the first program (the API, which never runs tools, starts none).
  const sandbox = createPythonSandbox({ outputLimitBytes: settings.sandbox.outputLimitBytes });
  const python = { sandbox, memoryMb: settings.sandbox.memoryMb, timeoutMs: settings.sandbox.timeoutMs };
  return createToolRegistry(builtinTools({ workspaceRoot: path.resolve(settings.workspaceDir), httpFetch, python }), env);
}
