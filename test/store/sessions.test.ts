import { SessionEndedError, SessionHasActiveRunsError, SessionNotEndedError, SessionNotFoundError, SessionPurgedError } from '../../core/store';
import { at, note, openStore, runningRoot, startCommand, terminal, uid } from './fixtures';

const { pool, store } = openStore();
afterAll(() => pool.end());

describe('sessions: active -> ended -> purged', () => {
  it('creating an active session again returns it unchanged', async () => {
    const id = uid('sess');
    const createdAt = at();
    const first = await store.createSession(id, createdAt);
    const again = await store.createSession(id, at());
    expect(again).toEqual(first);
    expect(again.createdAt.getTime()).toBe(createdAt.getTime());
    expect(await store.loadSessionStatus(id)).toBe('active');
  });

  it('refuses to create an ended session with "session ended"', async () => {
    const id = uid('sess');
    await store.createSession(id, at());
    await store.endSession(id, at());
    await expect(store.createSession(id, at())).rejects.toThrow(new SessionEndedError());
    await expect(store.createSession(id, at())).rejects.toThrow('session ended');
  });

  it('ends idempotently and keeps the first endedAt', async () => {
    const id = uid('sess');
    await store.createSession(id, at());
    const firstEnd = at();
    await store.endSession(id, firstEnd);
    const again = await store.endSession(id, at());
    expect(again.endedAt?.getTime()).toBe(firstEnd.getTime());
    expect((await store.loadSession(id)).endedAt?.getTime()).toBe(firstEnd.getTime());
  });

  it('answers "session not found" for unknown sessions', async () => {
    await expect(store.loadSession(uid('nope'))).rejects.toThrow('session not found');
    await expect(store.loadSessionStatus(uid('nope'))).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.endSession(uid('nope'), at())).rejects.toThrow('session not found');
  });

  it('purge needs an ended session', async () => {
    const id = uid('sess');
    await store.createSession(id, at());
    await expect(store.purgeSession(id)).rejects.toBeInstanceOf(SessionNotEndedError);
  });

  it('purge is blocked by a running run but not by a suspended one', async () => {
    const { run, sessionId } = await runningRoot(store);
    await store.endSession(sessionId, at());
    await expect(store.purgeSession(sessionId)).rejects.toThrow(new SessionHasActiveRunsError());
    expect((await store.listRunsBySession(sessionId, ['running'])).map((r) => r.runId)).toEqual([run.runId]);

    await store.recordRunSuspension({
      runId: run.runId,
      checkpoint: Buffer.from('cp'),
      record: { ...note(run), type: 'run_suspended', payload: Buffer.from('{}') },
    });
    await store.purgeSession(sessionId);
    expect(await store.loadSessionStatus(sessionId)).toBe('purged');
  });

  it('purge deletes runs, records and checkpoints and leaves a tombstone forever', async () => {
    const { run, sessionId } = await runningRoot(store);
    await store.appendRunRecord(note(run));
    await store.recordRunTerminal(terminal(run, 'completed'));
    await store.endSession(sessionId, at());
    await store.purgeSession(sessionId);
    await store.purgeSession(sessionId); // a retried purge is a no-op

    await expect(store.loadRun(run.runId)).rejects.toThrow('run not found');
    const rows = await pool.query('SELECT count(*)::int AS n FROM runtime_run_records WHERE run_id = $1', [run.runId]);
    expect(rows.rows[0].n).toBe(0);
    await expect(store.loadSession(sessionId)).rejects.toThrow(new SessionPurgedError());
    await expect(store.createSession(sessionId, at())).rejects.toThrow('session purged');
    await expect(store.listSessionRunRecords(sessionId, '', 10)).rejects.toThrow('session purged');
    const newRun = { runId: uid('run'), agentId: 'a', sessionId };
    await expect(store.startRootRun(startCommand(newRun))).rejects.toThrow('session purged');
    expect(await store.loadSessionStatus(sessionId)).toBe('purged');
  });

  it('lists runs of a session with an optional status filter', async () => {
    const { run, sessionId } = await runningRoot(store);
    const second = { runId: uid('run'), agentId: 'agent.two', sessionId };
    await store.startRootRun(startCommand(second));
    await store.recordRunTerminal(terminal(second, 'failed'));
    expect((await store.listRunsBySession(sessionId)).map((r) => r.runId)).toEqual([run.runId, second.runId]);
    expect((await store.listRunsBySession(sessionId, ['failed'])).map((r) => r.runId)).toEqual([second.runId]);
    expect(await store.listRunsBySession(sessionId, ['suspended'])).toEqual([]);
  });
});
