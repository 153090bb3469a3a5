import { Pool } from 'pg';
import { Registry } from 'prom-client';
import { createToolMetrics } from '../../core/tools/tool-metrics';
import { createModelMetrics } from '../../core/telemetry/model-metrics';
import { createTaskMetrics } from '../../core/telemetry/task-metrics';
import { watchSandboxPool } from '../../core/tools/python/sandbox-metrics';
import { createRequestMetrics } from '../../api/grpc/request-telemetry';
import { watchApiState } from '../../api/api-metrics';
import { cell, code, generatedPage, table } from './markdown';

// docs/reference/metrics.md from the metric definitions themselves: each process's series registered
// as workers/main.ts and api/main.ts register them (nothing is collected or scraped), with the help
// text and labels written beside each one.

/** A registered metric as prom-client builds it: its type is a field of its own, its label names too. */
interface Described {
  name: string;
  help: string;
  type: string;
  labelNames?: readonly string[];
}

/** Weft's series of a registry, each with what it counts; `note` marks those not in `without` (a setting adds them). */
function metricRows(registry: Registry, without?: Registry, note = ''): string[][] {
  const known = new Set(without?.getMetricsAsArray().map((metric) => (metric as unknown as Described).name));
  return registry
    .getMetricsAsArray()
    .map((metric) => metric as unknown as Described)
    .filter((described) => described.name.startsWith('weft_'))
    .map((described) => {
      const help = without && !known.has(described.name) ? `${described.help} (${note})` : described.help;
      return [code(described.name), described.type, (described.labelNames ?? []).map(code).join(', '), cell(help)];
    });
}

function workerRegistry(tenantLabels: boolean): Registry {
  const { registry } = createToolMetrics({ tenantLabels, shannonNames: false });
  createModelMetrics(registry);
  createTaskMetrics(registry);
  // An empty pool: its gauges read the pool only when scraped, which this never does.
  watchSandboxPool(registry, { pool: () => ({ size: 0, waiting: [] }) });
  return registry;
}

function apiRegistry(): Registry {
  const registry = new Registry();
  createRequestMetrics(registry);
  // The gauges read the database only when scraped, which this never does.
  watchApiState(registry, { pool: new Pool(), openStreams: () => 0 });
  return registry;
}

export function metricsReference(): string {
  const header = ['Series', 'Type', 'Labels', 'What it counts'];
  return generatedPage(
    'Metrics',
    'the metric definitions the worker and the API register',
    [
      'Both processes serve Prometheus text at `/metrics` on their metrics port (the worker on `WEFT_METRICS_PORT`, 9464;',
      'the API on `WEFT_API_METRICS_PORT`, 9465); with `WEFT_METRICS_TOKEN` set, only to `authorization: Bearer <token>`.',
      'No label names a tenant unless `WEFT_METRICS_TENANT_LABELS=true`. Besides the series below, the worker serves the',
      "Temporal SDK's own (`temporal_*`), and both serve Node's process metrics (`process_*`, `nodejs_*`);",
      "`WEFT_METRICS_COMPAT=shannon` also serves the tool series under Shannon's names (`shannon_tool_executions_total`, ...).",
      'See [Observability](../guides/observability.md) for the dashboard, logs and traces.',
    ],
    [
      '## Worker',
      '',
      table(header, metricRows(workerRegistry(true), workerRegistry(false), 'only with WEFT_METRICS_TENANT_LABELS=true')),
      '',
      '## API',
      '',
      table(header, metricRows(apiRegistry())),
    ],
  );
}
