import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BreakerStateName, OutboundHttp } from './outbound/outbound-http';
import type { ToolOutcome } from './tool';

// The seed's tool metrics, for Prometheus (prom-client), under Weft's prefix (and Shannon's, when asked): executions, duration,
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

/** The metric names of one naming scheme: Weft's own, or Shannon's as the seed lists them. */
interface MetricNames {
  executions: string;
  duration: string;
  errors: string;
  cost: string;
  breakerState: string;
  breakerFailures: string;
  rateLimited: string;
  tokens: string;
}

const weftNames: MetricNames = {
  executions: 'weft_tool_executions_total',
  duration: 'weft_tool_execution_duration_seconds',
  errors: 'weft_tool_errors_total',
  cost: 'weft_tool_cost_usd_total',
  breakerState: 'weft_circuit_breaker_state',
  breakerFailures: 'weft_circuit_breaker_failures_total',
  rateLimited: 'weft_rate_limit_exceeded_total',
  tokens: 'weft_rate_limit_tokens_available',
};

const shannonNames: MetricNames = {
  executions: 'shannon_tool_executions_total',
  duration: 'shannon_tool_execution_duration_seconds',
  errors: 'shannon_tool_errors_total',
  cost: 'shannon_tool_cost_usd',
  breakerState: 'shannon_circuit_breaker_state',
  breakerFailures: 'shannon_circuit_breaker_failures_total',
  rateLimited: 'shannon_rate_limit_exceeded_total',
  tokens: 'shannon_rate_limit_tokens_available',
};

/** One scheme's instruments, fed by every observation. */
function toolMetricSet(registry: Registry, names: MetricNames, tenantLabels: boolean): ToolObserver & { watch(outbound: OutboundHttp): void } {
  const registers = [registry];
  const executions = new Counter({ name: names.executions, help: 'Tool calls by outcome', labelNames: ['tool_name', 'status'], registers });
  const duration = new Histogram({ name: names.duration, help: 'Tool call duration', labelNames: ['tool_name'], registers });
  const errors = new Counter({ name: names.errors, help: 'Failed tool calls by error type', labelNames: ['tool_name', 'error_type'], registers });
  const cost = new Counter({ name: names.cost, help: 'USD charged for tool calls', labelNames: ['tool_name'], registers });
  const breakerState = new Gauge({
    name: names.breakerState,
    help: 'Circuit state per base URL: 0 closed, 1 open, 2 half-open',
    labelNames: ['base_url'],
    registers,
  });
  const breakerFailures = new Counter({
    name: names.breakerFailures,
    help: "Failed calls counted by a base URL's breaker",
    labelNames: ['base_url'],
    registers,
  });
  const rateLimited = new Counter({ name: names.rateLimited, help: "Tool calls refused by the tool's rate limit", labelNames: ['tool_name'], registers });
  const tokens = tenantLabels
    ? new Gauge({ name: names.tokens, help: "Tokens left in a tool's bucket for a tenant", labelNames: ['tool_name', 'tenant_id'], registers })
    : undefined;
  return {
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

/**
 * The worker's tool metrics, under Weft's names, and Shannon's too with `shannonNames`
 * (WEFT_METRICS_COMPAT=shannon), so dashboards and alerts written for Shannon keep working. Tenant
 * ids appear in no label unless `tenantLabels` (the per-tenant bucket gauge exists only then): a
 * metrics endpoint must not list who the customers are.
 */
export function createToolMetrics(options: { tenantLabels: boolean; shannonNames?: boolean }, registry = new Registry()): ToolMetrics {
  const sets = [weftNames, ...(options.shannonNames ? [shannonNames] : [])].map((names) => toolMetricSet(registry, names, options.tenantLabels));
  return {
    registry,
    executed: (...args) => sets.forEach((set) => set.executed(...args)),
    rateLimited: (tool) => sets.forEach((set) => set.rateLimited(tool)),
    tokensLeft: (...args) => sets.forEach((set) => set.tokensLeft(...args)),
    watch: (outbound) => sets.forEach((set) => set.watch(outbound)),
  };
}
