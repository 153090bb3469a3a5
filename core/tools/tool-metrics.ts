import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BreakerStateName, OutboundHttp } from './outbound/outbound-http';
import type { ToolOutcome } from './tool';

// The seed's tool metrics, for Prometheus (prom-client), under Weft's prefix: executions, duration,
// errors by type and cost per tool; circuit breaker state and failures per base URL; rate-limit
// rejections and tokens left per tool.

export interface ToolObserver {
  executed(tool: string, outcome: ToolOutcome, seconds: number, costUsd: number): void;
  rateLimited(tool: string): void;
  tokensLeft(tool: string, tenantId: string, tokens: number): void;
}

export interface ToolMetrics extends ToolObserver {
  registry: Registry;
  /** Follows the breakers of an outbound client. */
  watch(outbound: OutboundHttp): void;
}

const breakerValue: Record<BreakerStateName, number> = { closed: 0, open: 1, half_open: 2 };

/**
 * The worker's tool metrics. Tenant ids appear in no label unless `tenantLabels` (the per-tenant
 * bucket gauge exists only then): a metrics endpoint must not list who the customers are.
 */
export function createToolMetrics(options: { tenantLabels: boolean }, registry = new Registry()): ToolMetrics {
  const executions = new Counter({ name: 'weft_tool_executions_total', help: 'Tool calls by outcome', labelNames: ['tool_name', 'status'], registers: [registry] });
  const duration = new Histogram({ name: 'weft_tool_execution_duration_seconds', help: 'Tool call duration', labelNames: ['tool_name'], registers: [registry] });
  const errors = new Counter({ name: 'weft_tool_errors_total', help: 'Failed tool calls by error type', labelNames: ['tool_name', 'error_type'], registers: [registry] });
  const cost = new Counter({ name: 'weft_tool_cost_usd_total', help: 'USD charged for tool calls', labelNames: ['tool_name'], registers: [registry] });
  const breakerState = new Gauge({ name: 'weft_circuit_breaker_state', help: 'Circuit state per base URL: 0 closed, 1 open, 2 half-open', labelNames: ['base_url'], registers: [registry] });
  const breakerFailures = new Counter({ name: 'weft_circuit_breaker_failures_total', help: 'Failed calls counted by a base URL\'s breaker', labelNames: ['base_url'], registers: [registry] });
  const rateLimited = new Counter({ name: 'weft_rate_limit_exceeded_total', help: 'Tool calls refused by the tool\'s rate limit', labelNames: ['tool_name'], registers: [registry] });
  const tokens = options.tenantLabels
    ? new Gauge({ name: 'weft_rate_limit_tokens_available', help: 'Tokens left in a tool\'s bucket for a tenant', labelNames: ['tool_name', 'tenant_id'], registers: [registry] })
    : undefined;

  return {
    registry,
    executed(tool, outcome, seconds, costUsd) {
      executions.inc({ tool_name: tool, status: outcome.ok ? 'success' : 'error' });
      duration.observe({ tool_name: tool }, seconds);
      if (!outcome.ok) errors.inc({ tool_name: tool, error_type: outcome.error.category });
      if (costUsd > 0) cost.inc({ tool_name: tool }, costUsd);
    },
    rateLimited: (tool) => rateLimited.inc({ tool_name: tool }),
    tokensLeft: (tool, tenantId, left) => tokens?.set({ tool_name: tool, tenant_id: tenantId }, left),
    watch(outbound) {
      outbound.onBreakerChange((origin, state) => breakerState.set({ base_url: origin }, breakerValue[state]));
      outbound.onFailure((origin) => breakerFailures.inc({ base_url: origin }));
    },
  };
}
