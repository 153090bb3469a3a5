import { withTransaction, type Queryable } from '../../core/db/transaction';
import { appendTaskEvent, appendTaskEvents, listTaskEvents, type NewTaskEvent } from '../../core/events/event-log';
import { EventType } from '../../core/events/event-types';
import { openStore, uid } from './fixtures';

// A workflow's counter row hands out its events' sequence numbers. Every append locks it, but a
// statement writes it once however many events it appends (a new row version per write is what
// Postgres must vacuum and log), and the numbers stay dense and in commit order under contention.

const { pool } = openStore();
afterAll(() => pool.end());

const eventsOf = (workflowId: string, keys: string[]): NewTaskEvent[] =>
  keys.map((key) => ({ workflowId, key, type: EventType.StatusUpdate, message: key, at: new Date() }));

/** Rows of task_event_counters this transaction has inserted and updated so far. */
async function counterWrites(tx: Queryable): Promise<{ inserted: number; updated: number }> {
  const { rows } = await tx.query<{ inserted: number; updated: number }>(
    `SELECT n_tup_ins::int AS inserted, n_tup_upd::int AS updated FROM pg_stat_xact_user_tables WHERE relname = 'task_event_counters'`,
  );
  return rows[0]!;
}

/** The counter writes one append makes, measured inside its own transaction. */
async function writesOf(append: (tx: Queryable) => Promise<unknown>): Promise<{ inserted: number; updated: number }> {
  return withTransaction(pool, async (tx) => {
    const before = await counterWrites(tx);
    await append(tx);
    const after = await counterWrites(tx);
    return { inserted: after.inserted - before.inserted, updated: after.updated - before.updated };
  });
}

const lastSeqOf = async (workflowId: string) =>
  Number((await pool.query<{ last_seq: string }>('SELECT last_seq FROM task_event_counters WHERE workflow_id = $1', [workflowId])).rows[0]?.last_seq);

it('writes the counter row once per statement, however many events it appends, and not at all for a retried batch', async () => {
  const workflowId = uid('counter');
  // A workflow's first append creates its counter row holding the number it took.
  expect(await writesOf((tx) => appendTaskEvents(tx, eventsOf(workflowId, ['a', 'b', 'c'])))).toEqual({ inserted: 1, updated: 0 });
  expect(await writesOf((tx) => appendTaskEvents(tx, eventsOf(workflowId, ['d', 'e', 'f', 'g', 'h'])))).toEqual({ inserted: 0, updated: 1 });
  expect(await writesOf((tx) => appendTaskEvent(tx, eventsOf(workflowId, ['i'])[0]!))).toEqual({ inserted: 0, updated: 1 });
  // A retry of events already in the log appends nothing and writes nothing.
  expect(await writesOf((tx) => appendTaskEvents(tx, eventsOf(workflowId, ['b', 'e', 'i'])))).toEqual({ inserted: 0, updated: 0 });
  expect(await writesOf((tx) => appendTaskEvent(tx, eventsOf(workflowId, ['a'])[0]!))).toEqual({ inserted: 0, updated: 0 });

  expect((await listTaskEvents(pool, workflowId)).map((event) => [event.seq, event.key])).toEqual(
    ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((key, i) => [i + 1, key]),
  );
  expect(await lastSeqOf(workflowId)).toBe(9);
});

it('answers each event its seq: a repeated key, in the log or earlier in the batch, answers the first append of it', async () => {
  const workflowId = uid('counter');
  expect(await withTransaction(pool, (tx) => appendTaskEvent(tx, eventsOf(workflowId, ['a'])[0]!))).toBe(1);
  expect(await appendTaskEvent(pool, eventsOf(workflowId, ['b'])[0]!)).toBe(2);
  expect(await appendTaskEvent(pool, eventsOf(workflowId, ['a'])[0]!)).toBe(1);
  const { rows } = await pool.query<{ seqs: string[] }>(
    `SELECT weft_append_task_events($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::timestamptz[], 'weft_task_events') AS seqs`,
    [
      [workflowId, workflowId, workflowId, workflowId],
      ['c', 'b', 'c', 'd'],
      Array(4).fill(EventType.StatusUpdate),
      Array(4).fill(''),
      Array(4).fill(''),
      Array(4).fill('{}'),
      Array(4).fill(new Date()),
    ],
  );
  expect(rows[0]!.seqs.map(Number)).toEqual([3, 2, 3, 4]);
  expect((await listTaskEvents(pool, workflowId)).map((event) => [event.seq, event.key])).toEqual([
    [1, 'a'],
    [2, 'b'],
    [3, 'c'],
    [4, 'd'],
  ]);
  expect(await lastSeqOf(workflowId)).toBe(4);
});

it('serializes concurrent batches to one workflow, from its first append on: dense numbers, each batch whole and in its order, retries once', async () => {
  const workflowId = uid('counter');
  const batches = Array.from({ length: 12 }, (_, b) => eventsOf(workflowId, [`${b}/3`, `${b}/2`, `${b}/1`]));
  // Each batch twice at once: the retry of a batch must append nothing of it a second time.
  await Promise.all([...batches, ...batches].map((batch) => withTransaction(pool, (tx) => appendTaskEvents(tx, batch))));

  const log = await listTaskEvents(pool, workflowId);
  expect(log.map((event) => event.seq)).toEqual(Array.from({ length: 36 }, (_, i) => i + 1));
  expect(new Set(log.map((event) => event.key)).size).toBe(36);
  for (let i = 0; i < log.length; i += 3) {
    const batch = log[i]!.key.split('/')[0];
    expect(log.slice(i, i + 3).map((event) => event.key)).toEqual([`${batch}/3`, `${batch}/2`, `${batch}/1`]);
  }
  expect(await lastSeqOf(workflowId)).toBe(36);
});
