import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';

// Tracing, off unless an OTLP endpoint is configured: one trace from the gRPC or REST call (its W3C
// traceparent continued) through the workflow it starts, the workflow's activities, and each HTTP
// call they make (model providers, tools), with the ids in every log line written inside it.
// Temporal's OpenTelemetry plugin carries the context through workflow and activity headers.

export interface Tracing {
  /** For the Temporal client and worker: their interceptors, and the workflow spans' exporter. */
  plugin: OpenTelemetryPlugin;
  /** Sends what is still buffered, and stops. */
  shutdown(): Promise<void>;
}

/** The OTLP/HTTP exporter for the configured endpoint (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT). */
export const otlpExporter = (tracesEndpoint: string): SpanExporter => new OTLPTraceExporter({ url: tracesEndpoint });

/**
 * Installs tracing for this process, named `service`. Spans go to `exporter` in batches; `batch:
 * false` sends each at once (tests that read spans as soon as they end).
 */
export function startTracing(service: string, exporter: SpanExporter, options: { batch?: boolean } = {}): Tracing {
  const resource = new Resource({ 'service.name': service });
  const spanProcessor = options.batch === false ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  // Outbound HTTP through undici (Node's fetch, which the openai client uses, and the tools' client).
  const http = new UndiciInstrumentation();
  http.setTracerProvider(provider);
  http.enable();
  return {
    plugin: new OpenTelemetryPlugin({ resource, spanProcessor }),
    async shutdown() {
      http.disable();
      await provider.shutdown();
      // The API's globals go back to no-ops: nothing of this process is traced from here on.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
