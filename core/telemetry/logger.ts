import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

// Weft's processes log JSON lines (pino): one object per line with the service, the level, the
// message and whatever ids are known (task, workflow, tenant); inside a traced call also the trace
// and span ids, so a log line leads to its trace. Each process names itself once at start-up.

function createLogger(service: string, level: string): Logger {
  return pino({
    name: service,
    level,
    // The active span's ids, when tracing is on and a span is active.
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
    },
  });
}

let current: Logger = createLogger('weft', 'info');

/** Names the process in every line from now on, at this level (WEFT_LOG_LEVEL). */
export function configureLogger(service: string, level: string): void {
  current = createLogger(service, level);
}

/** The process's logger; `log().child({ taskId })` for lines about one task. */
export const log = (): Logger => current;
