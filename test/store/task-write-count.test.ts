import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createPool } from '../../core/db/database';
import { startTestStack, type TestStack } from '../support/stack';
import { submitTask, waitForFinish } from '../support/grpc';
import { logStatements } from '../support/statement-log';

// What one STANDARD task (no session, no budget) costs the stores it records its truth in, on the
// first attempt of everything: the statements its worker sends Postgres and the round trips they
// take, and the events of its Temporal history. Each is paid by every task, so these are the
// figures the throughput of a deployment follows.

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const workerPool = createPool(process.env.DATABASE_URL!);
const statementLog = logStatements(workerPool);
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ workerPool });
});

afterAll(async () => {
  await stack.stop();
  await workerPool.end();
});

async function runTask(query: string) {
  stack.model.on(query, { content: `answer to ${query}`, usage: { prompt_tokens: 10, completion_tokens: 5 } });
  const submitted = await submitTask(stack.orchestrator, { query });
  const status = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(status.status).toBe('TASK_STATUS_COMPLETED');
  // The workflow's own end: its last activity has answered.
  await stack.temporal.workflow.getHandle(submitted.workflow_id).result();
  return submitted.workflow_id;
}

const upsertedAttributes = (event: HistoryEvent) =>
  Object.fromEntries(
    Object.entries(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}).map(([key, payload]) => [
      key,
      defaultPayloadConverter.fromPayload(payload),
    ]),
  );

describe('a STANDARD task on its first attempt', () => {
  let workflowId: string;

  beforeAll(async () => {
    // A first task warms what a worker reads once (tenant settings, tool sources); the second is measured.
    await runTask('warm the worker up');
    statementLog.clear();
    workflowId = await runTask('what does a task write?');
  });

  it('records its start, its model step and its end in at most 6 statements and 4 round trips', () => {
    const sent = statementLog.statements();
    const summary = sent.map((s) => `${s.roundTrip}: ${s.text.replace(/\s+/g, ' ').slice(0, 120)}`).join('\n');
    process.stdout.write(`statements ${sent.length}, round trips ${statementLog.roundTrips()}\n${summary}\n`);
    expect(sent.length).toBeLessThanOrEqual(6);
    expect(statementLog.roundTrips()).toBeLessThanOrEqual(4);
  });

  it('has at most 13 history events, no patch marker, and one status upsert after its start', async () => {
    const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const upserts = events.filter((e) => e.eventType === EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES).map(upsertedAttributes);
    const markers = events.filter((e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED).map((e) => e.markerRecordedEventAttributes?.markerName);
    process.stdout.write(`history events ${events.length}, markers ${JSON.stringify(markers)}, upserts ${JSON.stringify(upserts)}\n`);
    expect(markers).not.toContain('core_patch');
    expect(upserts.filter((upserted) => 'TemporalChangeVersion' in upserted)).toEqual([]);
    expect(upserts).toEqual([{ WeftTaskStatus: 'COMPLETED' }]);
    expect(events.length).toBeLessThanOrEqual(13);
    // The start set the status the task runs with: no upsert needed to say RUNNING.
    const started = events[0]!.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields ?? {};
    expect(defaultPayloadConverter.fromPayload(started.WeftTaskStatus!)).toEqual('RUNNING');
  });
});
