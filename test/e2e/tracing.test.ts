import { Metadata } from '@grpc/grpc-js';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing, type Tracing } from '../../core/telemetry/tracing';
import { unaryCall } from '../../protos/clients';
import { waitForFinish } from '../support/grpc';
import { until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// Tracing from the caller's SubmitTask to the model's HTTP request: one trace, each span the child
// of the one that caused it, through the API, Temporal's headers, the workflow and its activity.

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let stack: TestStack;
beforeAll(async () => {
  tracing = startTracing('weft-test', exporter, { batch: false });
  stack = await startTestStack({ tracing });
});
afterAll(async () => {
  await stack.stop();
  await tracing.shutdown();
});

const named = (spans: ReadableSpan[], name: string | RegExp) => {
  const found = spans.find((span) => (typeof name === 'string' ? span.name === name : name.test(span.name)));
  if (!found) throw new Error(`no span ${String(name)} among ${spans.map((s) => s.name).join(', ')}`);
  return found;
};

it('follows one trace from the caller through SubmitTask, the workflow and its activity to the model call', async () => {
  stack.model.on('trace me', { content: 'traced answer' });
  // The caller's own span, sent as W3C traceparent like any instrumented client does.
  const caller = trace.getTracer('test-client').startSpan('client call');
  const metadata = new Metadata();
  propagation.inject(trace.setSpan(context.active(), caller), metadata, { set: (carrier, key, value) => carrier.set(key, value) });
  const submitted = await unaryCall(stack.orchestrator, 'SubmitTask', { query: 'trace me' }, { metadata });
  caller.end();
  await waitForFinish(stack.orchestrator, submitted.task_id);

  const traceId = caller.spanContext().traceId;
  const spans = await until(() => {
    const inTrace = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    return inTrace.some((span) => span.name === 'RunWorkflow:taskWorkflow') && inTrace.some((span) => span.name.startsWith('POST')) ? inTrace : undefined;
  });
  const submit = named(spans, 'shannon.orchestrator.OrchestratorService/SubmitTask');
  const start = named(spans, 'StartWorkflow:taskWorkflow');
  const workflow = named(spans, 'RunWorkflow:taskWorkflow');
  const scheduled = named(spans, 'StartActivity:runModelStep');
  const activity = named(spans, 'RunActivity:runModelStep');
  const http = spans.find((span) => span.name.startsWith('POST') && String(span.attributes['url.full']).includes('/chat/completions'));
  expect(http).toBeDefined();

  const parentOf = (span: ReadableSpan) => span.parentSpanId;
  expect(parentOf(submit)).toBe(caller.spanContext().spanId);
  expect(parentOf(start)).toBe(submit.spanContext().spanId);
  expect(parentOf(workflow)).toBe(start.spanContext().spanId);
  expect(parentOf(scheduled)).toBe(workflow.spanContext().spanId);
  expect(parentOf(activity)).toBe(scheduled.spanContext().spanId);
  expect(parentOf(http!)).toBe(activity.spanContext().spanId);
  expect(submit.attributes['weft.task_id']).toBe(submitted.task_id);
});

itLeavesEveryTaskVerified(() => stack.everyTask());
