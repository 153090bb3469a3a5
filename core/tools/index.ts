import path from 'node:path';
import { builtinTools } from './builtin';
import { createToolRegistry, type ToolRegistry } from './registry';
import { createDestinationPolicy } from './outbound/destination-policy';
import { createOutboundHttp, type OutboundHttp } from './outbound/outbound-http';

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

export function createWeftToolRegistry(options: { workspaceDir: string; outbound: OutboundSettings }, env: NodeJS.ProcessEnv = process.env): ToolRegistry {
  const httpFetch = outboundFor('WEFT_HTTP_FETCH_ALLOWED_DOMAINS', options.outbound.httpFetchAllowedDomains, options.outbound);
  return createToolRegistry(builtinTools({ workspaceRoot: path.resolve(options.workspaceDir), httpFetch }), env);
}
