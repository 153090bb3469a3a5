import * as grpc from '@grpc/grpc-js';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';
import { Counter, Histogram, type Registry } from 'prom-client';
import { log } from '../../core/telemetry/logger';
import { callerOf } from './callers';

// Every gRPC call the API answers, seen once on its way out: a server span continuing the caller's
// trace (W3C traceparent in the metadata; the handler runs inside it, so the workflow it starts
// joins the trace), a Prometheus count and latency by method and status, and one JSON log line
// with the caller's tenant and user and the task it was about.

const metadataGetter: TextMapGetter<grpc.Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => metadata.get(key).map(String),
};

const serverFaults: ReadonlySet<number> = new Set([
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.DATA_LOSS,
  grpc.status.UNAVAILABLE,
  grpc.status.UNIMPLEMENTED,
]);

export interface RequestMetrics {
  requests: Counter<'method' | 'code'>;
  latency: Histogram<'method'>;
}

export function createRequestMetrics(registry: Registry): RequestMetrics {
  return {
    requests: new Counter({
      name: 'weft_api_requests_total',
      help: 'gRPC calls answered, by method and status code',
      labelNames: ['method', 'code'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'weft_api_request_duration_seconds',
      help: 'gRPC call latency (a stream: its whole life), by method',
      labelNames: ['method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60, 600],
      registers: [registry],
    }),
  };
}

/** The task a request or response names, for the log line. */
function taskNamedBy(message: unknown): string | undefined {
  const fields = (message ?? {}) as { task_id?: unknown; workflow_id?: unknown };
  const id = fields.task_id || fields.workflow_id;
  return typeof id === 'string' && id ? id : undefined;
}

/** One call as the telemetry sees it: begun with the caller's metadata, its messages naming its task, ended with a status. */
export interface ObservedCall {
  /** The call's span in the context: the handler runs in it, so the workflow it starts joins the trace. */
  context: Context;
  message(message: unknown): void;
  end(status: { code: grpc.status; details: string }): void;
}

/** A call named `name` (service/method), observed from its metadata on. */
export type CallObserver = (name: string, metadata: grpc.Metadata) => ObservedCall;

export function callObserver(metrics?: RequestMetrics): CallObserver {
  const tracer = trace.getTracer('weft-api');
  return (name, metadata) => {
    const startedAt = performance.now();
    let taskId: string | undefined;
    const parent = propagation.extract(context.active(), metadata, metadataGetter);
    const span: Span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'grpc', 'rpc.method': name } }, parent);
    const spanContext = trace.setSpan(parent, span);
    return {
      context: spanContext,
      message(message) {
        taskId ??= taskNamedBy(message);
      },
      end(status) {
        const seconds = (performance.now() - startedAt) / 1000;
        const code = grpc.status[status.code] ?? String(status.code);
        metrics?.requests.inc({ method: name, code });
        metrics?.latency.observe({ method: name }, seconds);
        const caller = callerOf(metadata);
        if (taskId) span.setAttribute('weft.task_id', taskId);
        if (status.code !== grpc.status.OK) span.setStatus({ code: SpanStatusCode.ERROR, message: status.details });
        span.end();
        const line = {
          method: name,
          code,
          ms: Math.round(seconds * 1000),
          ...(taskId ? { taskId } : {}),
          ...(caller ? { tenantId: caller.tenantId, userId: caller.userId } : {}),
        };
        // A caller's mistake (a bad argument, an unknown id) is an answer like any other; the server's own failures are warnings.
        const serverFault = serverFaults.has(status.code);
        context.with(spanContext, () =>
          serverFault
            ? log().warn({ ...line, details: status.details }, 'request')
            : log().info(status.code === grpc.status.OK ? line : { ...line, details: status.details }, 'request'),
        );
      },
    };
  };
}

/** The observer as a server interceptor: every call the gRPC ports answer. */
export function requestTelemetry(observe: CallObserver): grpc.ServerInterceptor {
  return (method, call) => {
    const name = method.path.replace(/^\//, '');
    let observed: ObservedCall | undefined;
    const within = (run: () => void) => (observed ? context.with(observed.context, run) : run());
    return new grpc.ServerInterceptingCall(call, {
      start(next) {
        next(
          new grpc.ServerListenerBuilder()
            .withOnReceiveMetadata((received, nextMetadata) => {
              observed = observe(name, received);
              nextMetadata(received);
            })
            .withOnReceiveMessage((message, nextMessage) => {
              observed?.message(message);
              within(() => nextMessage(message));
            })
            .withOnReceiveHalfClose((nextHalfClose) => within(() => nextHalfClose()))
            .build(),
        );
      },
      sendMessage(message, next) {
        observed?.message(message);
        next(message);
      },
      sendStatus(status, next) {
        observed?.end(status);
        next(status);
      },
    });
  };
}
