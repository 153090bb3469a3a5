import { EventConflictError, RecordType, RunMetadataConflictError, RunNotActiveError, RunTerminalOutcomeConflictError } from '../../core/store';
import type { Queryable } from '../../core/db/transaction';
import { childCommand, note, openStore, record, runningRoot, startCommand, terminal, uid } from './fixtures';

// Races against real Postgres: every contender runs in its own transaction on its own connection.

const { pool, store } = openStore();
afterAll(() => pool.end());

const settle = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);
/**
 * A write whose transaction stays open, holding its locks, until release() is called; `inside`
 * resolves with the server process that holds them.
 */
function heldOpen() {
  let entered!: (holder: number) => void;
  let release!: () => void;
  const inside = new Promise<number>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const alsoWrite = async (tx: Queryable) => {
    const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    entered(rows[0]!.pid);
    await released;
  };
  return { alsoWrite, inside, release };
}

/** Resolves once another statement waits for a lock that the `holder` server process holds. */
async function untilBlockedBy(holder: number): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    const { rows } = await pool.query<{ waiting: number }>('SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [
      holder,
    ]);
    if (rows[0]!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no statement ever waited for the locks of server process ${holder}`);
}

const rejectedWith = (results: PromiseSettledResult<unknown>[]) =>
  results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error);

describe('racing writers', () => {
  it('identical root starts: one insert, every racer gets the same original ids', async () => {
    const { sessionId } = await runningRoot(store);
    const cmd = startCommand({ runId: uid('run'), agentId: 'a', sessionId });
    const results = await Promise.all(Array.from({ length: 12 }, () => store.startRootRun(cmd)));
    expect(results.filter((r) => r.inserted)).toHaveLength(1);
    expect(new Set(results.map((r) => r.startedRecordId)).size).toBe(1);
    expect((await store.listRunRecords(cmd.runId, '', 100)).records).toHaveLength(1);
  });

  it('identical one-shot starts (no session row to serialize on): still one insert', async () => {
    const cmd = startCommand({ runId: uid('oneshot'), agentId: 'a' });
    const results = await Promise.all(Array.from({ length: 12 }, () => store.startOneShotRun(cmd)));
    expect(results.filter((r) => r.inserted)).toHaveLength(1);
    expect(new Set(results.map((r) => r.startedRecordId)).size).toBe(1);
  });

  it('racing successors: exactly one continues the predecessor', async () => {
    const { run } = await runningRoot(store);
    await store.recordRunSuspension({ runId: run.runId, checkpoint: Buffer.from('c'), record: record(run, RecordType.RunSuspended, {}) });
    const successors = Array.from({ length: 10 }, () =>
      startCommand({ runId: uid('next'), agentId: run.agentId, sessionId: run.sessionId, predecessorRunId: run.runId }),
    );
    const results = await settle(successors.map((cmd) => store.startRootRun(cmd)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const err of rejectedWith(results)) expect(err).toBeInstanceOf(RunMetadataConflictError);
    // Readers find a continuation where the seed keeps it: in the successor's RunStarted record.
    const runs = await store.listRunsBySession(run.sessionId);
    const predecessors = await Promise.all(
      runs.map(async (r) => JSON.parse(Buffer.from((await store.listRunRecords(r.runId, '', 1)).records[0]!.payload).toString()).predecessor_run_id),
    );
    expect(predecessors.filter((id) => id === run.runId)).toHaveLength(1);
  });

  it('racing terminal writes: one outcome wins, the rest conflict, identical retries agree', async () => {
    const { run } = await runningRoot(store);
    const outcomes = [...Array.from({ length: 5 }, () => terminal(run, 'completed')), ...Array.from({ length: 5 }, () => terminal(run, 'failed'))];
    const results = await settle(outcomes.map((cmd) => store.recordRunTerminal(cmd)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const err of rejectedWith(results)) {
      expect(err instanceof RunTerminalOutcomeConflictError || err instanceof EventConflictError).toBe(true);
    }
    const completions = (await store.listRunRecords(run.runId, '', 100)).records.filter((r) => r.type === RecordType.RunCompleted);
    expect(completions).toHaveLength(1);

    const { run: other } = await runningRoot(store);
    const same = terminal(other, 'completed');
    const identical = await Promise.all(Array.from({ length: 8 }, () => store.recordRunTerminal(same)));
    expect(identical.filter((r) => r.inserted)).toHaveLength(1);
    expect(new Set(identical.map((r) => r.recordId)).size).toBe(1);
  });

  it('a parent stopping while children start: every started child is linked before the parent ended', async () => {
    const { run: parent } = await runningRoot(store);
    const children = Array.from({ length: 16 }, () => childCommand(parent, { runId: uid('child'), agentId: 'c', sessionId: parent.sessionId }));
    const starts = children.map((cmd) => store.startChildRun(cmd));
    const stop = store.recordRunTerminal(terminal(parent, 'completed'));
    const results = await settle<unknown>([...starts, stop]);
    expect(results.at(-1)!.status).toBe('fulfilled');
    for (const err of rejectedWith(results)) expect(err).toBeInstanceOf(RunNotActiveError);

    const parentLog = (await store.listRunRecords(parent.runId, '', 100)).records;
    const endedAt = BigInt(parentLog.find((r) => r.type === RecordType.RunCompleted)!.id);
    const links = parentLog.filter((r) => r.type === RecordType.ChildRunLinked);
    const started = results.slice(0, -1).filter((r) => r.status === 'fulfilled').length;
    expect(links).toHaveLength(started);
    for (const link of links) expect(BigInt(link.id) < endedAt).toBe(true);
    for (const [index, cmd] of children.entries()) {
      const load = store.loadRun(cmd.runId);
      if (results[index]!.status === 'fulfilled') await expect(load).resolves.toMatchObject({ parentRunId: parent.runId });
      else await expect(load).rejects.toThrow('run not found');
    }
  });

  it('concurrent appenders on one session: no duplicate, no lost write, ids in commit order', async () => {
    const { run, sessionId } = await runningRoot(store);
    const writes = Array.from({ length: 40 }, (_, i) => note(run, `n${i}`));
    const results = await Promise.all([...writes, ...writes].map((rec) => store.appendRunRecord(rec)));
    expect(results.filter((r) => r.inserted)).toHaveLength(40);
    const page = await store.listSessionRunRecords(sessionId, '', 1000);
    expect(page.records).toHaveLength(41);
    expect(new Set(page.records.map((r) => r.key)).size).toBe(41);
  });

  it('an append that waited while its run ended is refused: nothing follows the terminal record', async () => {
    const { run } = await runningRoot(store);
    const end = heldOpen();
    const ending = store.recordRunTerminal(terminal(run, 'completed'), end.alsoWrite);
    const holder = await end.inside;
    const append = store.appendRunRecord(note(run, 'too late'));
    await untilBlockedBy(holder);
    end.release();
    await ending;
    await expect(append).rejects.toBeInstanceOf(RunNotActiveError);
    const log = (await store.listRunRecords(run.runId, '', 100)).records;
    expect(log.at(-1)!.type).toBe(RecordType.RunCompleted);
  });

  it('appends to two runs of one session wait for each other, so a session reader never sees a later id first', async () => {
    const { run: parent } = await runningRoot(store);
    const child = { runId: uid('child'), agentId: 'c', sessionId: parent.sessionId };
    await store.startChildRun(childCommand(parent, child));
    const first = heldOpen();
    const childWrite = store.appendRunRecord(note(child, 'first'), first.alsoWrite);
    const holder = await first.inside;
    let parentDone = false;
    const parentWrite = store.appendRunRecord(note(parent, 'second')).finally(() => (parentDone = true));
    await untilBlockedBy(holder);
    // While the child's record is uncommitted, a record with a later id cannot commit in its session.
    expect(parentDone).toBe(false);
    first.release();
    const [childId, parentId] = (await Promise.all([childWrite, parentWrite])).map((w) => BigInt(w.recordId));
    expect(parentId! > childId!).toBe(true);
  });
});
