import { Counter, Histogram, type Registry } from 'prom-client';
import type { TokenCounts } from '../llm/chat-model';

// Model calls as Prometheus sees them: calls, tokens, cost and latency by provider and model,
// answers that came from a model further down the failover order, and failures.

export interface ServedCall {
  provider: string;
  model: string;
  usage: TokenCounts;
  costUsd: number;
  seconds: number;
  /** Answered by a model other than the first choice (failover). */
  failedOver: boolean;
}

export interface ModelObserver {
  served(call: ServedCall): void;
  failed(call: { wanted: string; seconds: number }): void;
}

export function createModelMetrics(registry: Registry): ModelObserver {
  const labelNames = ['provider', 'model'] as const;
  const calls = new Counter({
    name: 'weft_model_calls_total',
    help: 'Model calls by provider, model and outcome',
    labelNames: [...labelNames, 'outcome'],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'weft_model_tokens_total',
    help: 'Tokens by provider, model and kind (prompt, completion)',
    labelNames: [...labelNames, 'kind'],
    registers: [registry],
  });
  const estimated = new Counter({
    name: 'weft_model_estimated_tokens_total',
    help: 'Tokens Weft counted itself because the provider reported no usage (also in weft_model_tokens_total), by provider, model and kind',
    labelNames: [...labelNames, 'kind'],
    registers: [registry],
  });
  const cost = new Counter({ name: 'weft_model_cost_usd_total', help: 'USD spent on model calls', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'weft_model_call_duration_seconds',
    help: 'Model call latency, retries and failover included',
    labelNames,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const failovers = new Counter({
    name: 'weft_model_failovers_total',
    help: 'Answers served by a model after the first choice failed, by the model that answered',
    labelNames,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'weft_model_failures_total',
    help: 'Model requests no candidate could answer, by what was asked for',
    labelNames: ['wanted'],
    registers: [registry],
  });
  return {
    served({ provider, model, usage, costUsd, seconds, failedOver }) {
      const labels = { provider, model };
      calls.inc({ ...labels, outcome: 'success' });
      tokens.inc({ ...labels, kind: 'prompt' }, usage.promptTokens);
      tokens.inc({ ...labels, kind: 'completion' }, usage.completionTokens);
      if (usage.estimated) {
        estimated.inc({ ...labels, kind: 'prompt' }, usage.promptTokens);
        estimated.inc({ ...labels, kind: 'completion' }, usage.completionTokens);
      }
      if (costUsd > 0) cost.inc(labels, costUsd);
      latency.observe(labels, seconds);
      if (failedOver) failovers.inc(labels);
    },
    failed({ wanted, seconds }) {
      failures.inc({ wanted });
      latency.observe({ provider: 'none', model: 'none' }, seconds);
    },
  };
}
