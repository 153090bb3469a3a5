import { randomUUID } from 'node:crypto';
import { tailTaskEvents } from '../../api/tasks/task-event-tail';
import { createPool } from '../../core/db/database';
import { withTransaction } from '../../core/db/transaction';
import { startEventFeed, type EventFeed } from '../../core/events/event-feed';
import { appendTaskEvent, appendTaskEvents, listTaskEvents, type TaskEvent } from '../../core/events/event-log';
import { EventType } from '../../core/events/event-types';

// Live events come from the append notifications; one too large for a notification (8,000 bytes)
// arrives through the log instead, in its place.

const pool = createPool(process.env.DATABASE_URL!);
let feed: EventFeed;
beforeAll(async () => {
  feed = await startEventFeed(process.env.DATABASE_URL!);
});
afterAll(async () => {
  await feed.close();
  await pool.end();
});

const append = (workflowId: string, key: string, type: EventType, message: string) =>
  withTransaction(pool, (tx) => appendTaskEvent(tx, { workflowId, key, type, message, at: new Date() }));

it('delivers live events in order with no gap, including one too large to travel in its notification', async () => {
  const workflowId = `tail-${randomUUID()}`;
  const received: TaskEvent[] = [];
  const tail = (async () => {
    for await (const event of tailTaskEvents({ pool, events: feed }, workflowId, 0, new AbortController().signal)) received.push(event);
  })();
  await new Promise((resolve) => setTimeout(resolve, 200)); // the tail is listening
  const big = 'x'.repeat(10_000);
  await append(workflowId, 'a', EventType.WorkflowStarted, 'started');
  await append(workflowId, 'b', EventType.StatusUpdate, big);
  await append(workflowId, 'c', EventType.StatusUpdate, 'after the big one');
  await append(workflowId, 'd', EventType.WorkflowCompleted, 'done');
  await tail;
  expect(received.map((e) => [e.seq, e.message.length])).toEqual([
    [1, 7],
    [2, 10_000],
    [3, 17],
    [4, 4],
  ]);
  expect(received[1]!.at).toBeInstanceOf(Date);
});

it("keeps delivering after the feed's connection is cut: it listens again and readers catch up at once", async () => {
  const workflowId = `tail-cut-${randomUUID()}`;
  const received: TaskEvent[] = [];
  const tail = (async () => {
    for await (const event of tailTaskEvents({ pool, events: feed }, workflowId, 0, new AbortController().signal)) received.push(event);
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await append(workflowId, 'a', EventType.WorkflowStarted, 'before the cut');
  const cut = await pool.query(
    `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE query = 'LISTEN weft_task_events' AND pid <> pg_backend_pid()`,
  );
  expect(cut.rows.length).toBeGreaterThan(0);
  // Appended while nobody listens: no notification reaches the reader.
  await append(workflowId, 'b', EventType.StatusUpdate, 'during the cut');
  const startedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 500));
  await append(workflowId, 'c', EventType.WorkflowCompleted, 'after the cut');
  await tail;
  // Well before the 30 s safety re-read: the reconnect woke the reader.
  expect(Date.now() - startedAt).toBeLessThan(5_000);
  expect(received.map((e) => e.message)).toEqual(['before the cut', 'during the cut', 'after the cut']);
});

it('appends a batch of events in the order given, in one statement, and a retried batch appends none twice', async () => {
  const workflowId = `batch-${randomUUID()}`;
  // Keys in descending order: an append in key order would reverse them.
  const events = Array.from({ length: 30 }, (_, i) => ({
    workflowId,
    key: `${workflowId}/${String(99 - i)}`,
    type: EventType.StatusUpdate,
    message: `event ${i}`,
    at: new Date(),
  }));
  const received: TaskEvent[] = [];
  const tail = (async () => {
    for await (const event of tailTaskEvents({ pool, events: feed }, workflowId, 0, new AbortController().signal)) received.push(event);
  })();
  await new Promise((resolve) => setTimeout(resolve, 200)); // the tail is listening
  await appendTaskEvents(pool, events);
  await appendTaskEvents(pool, [events[3]!, ...events.slice(10, 12)]);
  await appendTaskEvents(pool, [{ workflowId, key: `${workflowId}/end`, type: EventType.WorkflowCompleted, message: 'done', at: new Date() }]);
  await tail;
  const expected = [...events.map((event, i) => [i + 1, event.message]), [31, 'done']];
  expect(received.map((e) => [e.seq, e.message])).toEqual(expected);
  expect((await listTaskEvents(pool, workflowId)).map((e) => [e.seq, e.message])).toEqual(expected);
});

it("gives a failed read of the log to the tail's reader, and to no one else: the process keeps running when Postgres dies", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    // A pool whose every query fails, as when the postmaster has died under the API.
    const failing = { query: () => Promise.reject(new Error('terminating connection due to unexpected postmaster exit')) } as unknown as typeof pool;
    const reading = (async () => {
      for await (const event of tailTaskEvents({ pool: failing, events: feed }, `tail-down-${randomUUID()}`, 0, new AbortController().signal)) void event;
    })();
    await expect(reading).rejects.toThrow('unexpected postmaster exit');
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

it('ends at the final event though text a cancelled step was streaming is recorded after it', async () => {
  const workflowId = `tail-late-${randomUUID()}`;
  await append(workflowId, 'a', EventType.WorkflowStarted, 'started');
  await append(workflowId, 'b', EventType.WorkflowCancelled, 'cancelled');
  await append(workflowId, 'partial:1:1:0', EventType.LlmPartial, 'words still on their way');
  const received: string[] = [];
  // A tail that misses the end waits for more until this gives up on it.
  const givingUp = AbortSignal.timeout(5_000);
  for await (const event of tailTaskEvents({ pool, events: feed }, workflowId, 0, givingUp)) received.push(event.type);
  expect(givingUp.aborted).toBe(false);
  expect(received).toEqual([EventType.WorkflowStarted, EventType.WorkflowCancelled, EventType.LlmPartial]);
});
