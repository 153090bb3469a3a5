import { z } from 'zod';

// The settings of metrics, logs and traces (read with the rest in core/config.ts).

export const telemetryEnvSchema = z.object({
  WEFT_METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(9464)
    .describe("The worker's Prometheus endpoint (`/metrics`) and its probes (`/healthz`, `/readyz`)."),
  WEFT_API_METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(9465)
    .describe("The API's Prometheus endpoint (`/metrics`) and its probes (`/healthz`, `/readyz`)."),
  WEFT_METRICS_TOKEN: z.string().min(16).optional().describe('A bearer token `/metrics` requires (`authorization: Bearer <token>`); the probes stay open.'),
  WEFT_METRICS_TENANT_LABELS: z.enum(['true', 'false']).default('false').describe('`true`: metrics may carry tenant ids as labels.'),
  WEFT_METRICS_COMPAT: z
    .enum(['shannon'])
    .optional()
    .describe("`shannon`: the tool, circuit-breaker and rate-limit metrics are also served under Shannon's names (`shannon_tool_executions_total`, ...)."),
  WEFT_LOG_LEVEL: z
    .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
    .default('info')
    .describe('The lowest level logged (JSON lines on stdout).'),
  // OpenTelemetry's own names: tracing is on only when one of them names an OTLP/HTTP endpoint.
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url()
    .optional()
    .describe('An OTLP/HTTP traces endpoint; tracing is on only when this or OTEL_EXPORTER_OTLP_ENDPOINT is set.'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional().describe("An OTLP/HTTP collector; traces go to its `/v1/traces` (OpenTelemetry's own setting)."),
});

export interface TelemetrySettings {
  /** Where the worker serves its Prometheus metrics (/metrics). */
  metricsPort: number;
  /** Where the API serves its Prometheus metrics (/metrics). */
  apiMetricsPort: number;
  /** A bearer token /metrics requires (WEFT_METRICS_TOKEN), and whether tenant ids may be labels. */
  metrics: { token?: string; tenantLabels: boolean; shannonNames: boolean };
  logLevel: z.infer<typeof telemetryEnvSchema>['WEFT_LOG_LEVEL'];
  /** Where traces go (OTLP over HTTP); no tracing without it. */
  tracing?: { tracesEndpoint: string };
}

/** The traces endpoint: the traces-specific setting, or the general endpoint's /v1/traces (as OpenTelemetry defines them). */
function tracingOf(tracesEndpoint: string | undefined, endpoint: string | undefined): Pick<TelemetrySettings, 'tracing'> {
  if (tracesEndpoint) return { tracing: { tracesEndpoint } };
  if (endpoint) return { tracing: { tracesEndpoint: `${endpoint.replace(/\/$/, '')}/v1/traces` } };
  return {};
}

export function telemetrySettingsOf(e: z.infer<typeof telemetryEnvSchema>): TelemetrySettings {
  return {
    metricsPort: e.WEFT_METRICS_PORT,
    apiMetricsPort: e.WEFT_API_METRICS_PORT,
    metrics: {
      ...(e.WEFT_METRICS_TOKEN ? { token: e.WEFT_METRICS_TOKEN } : {}),
      tenantLabels: e.WEFT_METRICS_TENANT_LABELS === 'true',
      shannonNames: e.WEFT_METRICS_COMPAT === 'shannon',
    },
    logLevel: e.WEFT_LOG_LEVEL,
    ...tracingOf(e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, e.OTEL_EXPORTER_OTLP_ENDPOINT),
  };
}
