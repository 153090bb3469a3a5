import { EventConflictError, InvalidStoreInputError, RecordType, RunMetadataConflictError, RunNotActiveError, encodePayload } from '../../core/store';
import { at, childCommand, note, openStore, record, runningRoot, startCommand, terminal, uid } from './fixtures';

const { pool, store } = openStore();
afterAll(() => pool.end());

const types = async (runId: string) => (await store.listRunRecords(runId, '', 100)).records.map((r) => r.type);

describe('root starts', () => {
  it('on an active session: run meta with outcome proceed and run_started, in one transaction', async () => {
    const { run, started } = await runningRoot(store, { team: 'blue' });
    expect(started).toMatchObject({ decision: 'proceed', status: 'running', inserted: true });
    const meta = await store.loadRun(run.runId);
    expect(meta).toMatchObject({ status: 'running', startOutcome: 'proceed', cancellationReason: '', labels: { team: 'blue' } });
    expect(await types(run.runId)).toEqual([RecordType.RunStarted]);
  });

  it('on an ended session: outcome stop, session_ended, run_started and a canceled run_completed', async () => {
    const sessionId = uid('sess');
    await store.createSession(sessionId, at());
    await store.endSession(sessionId, at());
    const run = { runId: uid('run'), agentId: 'a', sessionId };
    const result = await store.startRootRun(startCommand(run));
    expect(result).toMatchObject({ decision: 'stop', status: 'canceled', inserted: true });
    expect(result.canceledRecordId).toBeDefined();
    const meta = await store.loadRun(run.runId);
    expect(meta).toMatchObject({ status: 'canceled', startOutcome: 'stop', cancellationReason: 'session_ended' });
    expect(await types(run.runId)).toEqual([RecordType.RunStarted, RecordType.RunCompleted]);
  });

  it('needs an existing session', async () => {
    const run = { runId: uid('run'), agentId: 'a', sessionId: uid('missing') };
    await expect(store.startRootRun(startCommand(run))).rejects.toThrow('session not found');
  });

  it('validates before writing: ids, start timestamp, started record fields, and the unused canceled candidate', async () => {
    const { sessionId } = await runningRoot(store);
    const run = { runId: uid('run'), agentId: 'a', sessionId };
    const good = startCommand(run);
    const cases = [
      { ...good, runId: '' },
      { ...good, agentId: '' },
      { ...good, startedAt: new Date('nope') },
      { ...good, started: { ...good.started, timestamp: at() } },
      { ...good, labels: { extra: 'label' } },
      { ...good, started: { ...good.started, payload: encodePayload({ parent_run_id: 'x' }) } },
      { ...good, canceled: { ...good.canceled, payload: encodePayload({ status: 'failed' }) } },
      { ...good, canceled: { ...good.canceled, key: good.started.key } },
      { ...good, started: { ...good.started, type: 'something_else' } },
    ];
    for (const bad of cases) await expect(store.startRootRun(bad)).rejects.toBeInstanceOf(InvalidStoreInputError);
    await expect(store.startRootRun({ ...good, started: { ...good.started, agentId: 'other' } })).rejects.toThrow('run record owner does not match stored run');
    await expect(store.loadRun(run.runId)).rejects.toThrow('run not found');
  });

  it('an exact retry returns the original decision and ids, and changes nothing, even after the run finished', async () => {
    const { run, cmd, started } = await runningRoot(store);
    await store.recordRunTerminal(terminal(run, 'completed'));
    const before = await store.loadRun(run.runId);
    await store.endSession(run.sessionId, at());
    const retry = await store.startRootRun(cmd);
    expect(retry).toEqual({ ...started, status: 'completed', inserted: false });
    expect(await store.loadRun(run.runId)).toEqual(before);
    expect(await types(run.runId)).toEqual([RecordType.RunStarted, RecordType.RunCompleted]);
  });

  it('a stop decision is returned unchanged by its retry', async () => {
    const sessionId = uid('sess');
    await store.createSession(sessionId, at());
    await store.endSession(sessionId, at());
    const cmd = startCommand({ runId: uid('run'), agentId: 'a', sessionId });
    const first = await store.startRootRun(cmd);
    expect(await store.startRootRun(cmd)).toEqual({ ...first, inserted: false });
  });

  it('a retry with different metadata is a metadata conflict; with another key an event conflict', async () => {
    const { cmd } = await runningRoot(store);
    await expect(
      store.startRootRun({ ...cmd, labels: { x: 'y' }, started: { ...cmd.started, payload: encodePayload({ labels: { x: 'y' } }) } }),
    ).rejects.toThrow(new RunMetadataConflictError());
    await expect(store.startRootRun({ ...cmd, started: { ...cmd.started, key: uid('other') } })).rejects.toBeInstanceOf(EventConflictError);
    await expect(store.startRootRun({ ...cmd, started: { ...cmd.started, payload: Buffer.from('{ }') } })).rejects.toBeInstanceOf(EventConflictError);
  });
});

describe('child starts', () => {
  it('appends child_run_linked to the parent and run_started to the child together', async () => {
    const { run: parent } = await runningRoot(store);
    const child = { runId: uid('child'), agentId: 'agent.child', sessionId: parent.sessionId };
    const cmd = childCommand(parent, child, { name: 'research', callId: 'call-1' });
    const result = await store.startChildRun(cmd);
    expect(result).toMatchObject({ decision: 'proceed', status: 'running', inserted: true });
    expect(await types(parent.runId)).toEqual([RecordType.RunStarted, RecordType.ChildRunLinked]);
    expect(await types(child.runId)).toEqual([RecordType.RunStarted]);
    const link = (await store.listRunRecords(parent.runId, '', 10)).records[1]!;
    expect(JSON.parse(Buffer.from(link.payload).toString())).toEqual({
      tool_name: 'research',
      tool_call_id: 'call-1',
      child_run_id: child.runId,
      child_agent_id: 'agent.child',
    });
    expect((await store.loadRun(child.runId)).parentRunId).toBe(parent.runId);
  });

  it('needs an existing, running parent in the same session', async () => {
    const { run: parent } = await runningRoot(store);
    const { sessionId: otherSession } = await runningRoot(store);
    const missingParent = { runId: uid('ghost'), agentId: 'a', sessionId: parent.sessionId };
    await expect(store.startChildRun(childCommand(missingParent, { runId: uid('c'), agentId: 'c', sessionId: parent.sessionId }))).rejects.toThrow(
      'run not found',
    );
    const foreign = childCommand(parent, { runId: uid('c'), agentId: 'c', sessionId: otherSession });
    await expect(store.startChildRun(foreign)).rejects.toThrow('run record owner does not match stored run');
  });

  it('an exact retry stays valid after the parent stopped; a new child then gets "run is not active"', async () => {
    const { run: parent } = await runningRoot(store);
    const cmd = childCommand(parent, { runId: uid('c'), agentId: 'c', sessionId: parent.sessionId });
    const first = await store.startChildRun(cmd);
    await store.recordRunTerminal(terminal(parent, 'completed'));
    expect(await store.startChildRun(cmd)).toEqual({ ...first, inserted: false });
    const late = childCommand(parent, { runId: uid('c'), agentId: 'c', sessionId: parent.sessionId });
    await expect(store.startChildRun(late)).rejects.toThrow(new RunNotActiveError());
    await expect(store.startChildRun({ ...cmd, link: { ...cmd.link, key: uid('k') } })).rejects.toBeInstanceOf(EventConflictError);
  });

  it('on an ended session also writes the child canceled run_completed', async () => {
    const { run: parent, sessionId } = await runningRoot(store);
    await store.endSession(sessionId, at());
    const child = { runId: uid('c'), agentId: 'c', sessionId };
    const result = await store.startChildRun(childCommand(parent, child));
    expect(result).toMatchObject({ decision: 'stop', status: 'canceled' });
    expect(await types(child.runId)).toEqual([RecordType.RunStarted, RecordType.RunCompleted]);
    expect(await types(parent.runId)).toEqual([RecordType.RunStarted, RecordType.ChildRunLinked]);
  });

  it('refuses a link record that names another child', async () => {
    const { run: parent } = await runningRoot(store);
    const cmd = childCommand(parent, { runId: uid('c'), agentId: 'c', sessionId: parent.sessionId });
    const wrongLink = record(parent, RecordType.ChildRunLinked, { tool_name: 't', tool_call_id: 'x', child_run_id: 'other', child_agent_id: 'c' });
    await expect(store.startChildRun({ ...cmd, link: wrongLink })).rejects.toBeInstanceOf(InvalidStoreInputError);
  });
});

describe('one-shot runs', () => {
  it('have no session and never appear in session listings', async () => {
    const run = { runId: uid('oneshot'), agentId: 'a' };
    const result = await store.startOneShotRun(startCommand(run));
    expect(result.decision).toBe('proceed');
    expect((await store.loadRun(run.runId)).sessionId).toBeUndefined();
    await expect(store.startOneShotRun(startCommand({ ...run, runId: uid('x'), sessionId: 's' }))).rejects.toBeInstanceOf(InvalidStoreInputError);
  });

  it('a one-shot child needs a running, sessionless parent', async () => {
    const parent = { runId: uid('oneshot'), agentId: 'a' };
    await store.startOneShotRun(startCommand(parent));
    const child = { runId: uid('c'), agentId: 'c' };
    const cmd = childCommand(parent, child);
    const first = await store.startOneShotChildRun(cmd);
    expect(first.decision).toBe('proceed');
    expect(await types(parent.runId)).toEqual([RecordType.RunStarted, RecordType.ChildRunLinked]);

    const { run: sessionful } = await runningRoot(store);
    const bad = childCommand({ runId: sessionful.runId, agentId: sessionful.agentId }, { runId: uid('c'), agentId: 'c' });
    await expect(store.startOneShotChildRun(bad)).rejects.toThrow('run record owner does not match stored run');

    await store.recordRunTerminal(terminal(parent, 'completed'));
    expect(await store.startOneShotChildRun(cmd)).toEqual({ ...first, inserted: false });
    await expect(store.startOneShotChildRun(childCommand(parent, { runId: uid('c'), agentId: 'c' }))).rejects.toThrow('run is not active');
  });
});

describe('continuations', () => {
  async function suspendedRun() {
    const { run, sessionId } = await runningRoot(store);
    await store.recordRunSuspension({
      runId: run.runId,
      checkpoint: Buffer.from([1, 2, 3]),
      record: record(run, RecordType.RunSuspended, { reason: 'await_input' }),
    });
    return { run, sessionId };
  }

  it('a successor of a suspended predecessor with the same session, agent and parent starts', async () => {
    const { run } = await suspendedRun();
    const successor = { runId: uid('next'), agentId: run.agentId, sessionId: run.sessionId, predecessorRunId: run.runId };
    const result = await store.startRootRun(startCommand(successor));
    expect(result.decision).toBe('proceed');
    const started = (await store.listRunRecords(successor.runId, '', 10)).records[0]!;
    expect(JSON.parse(Buffer.from(started.payload).toString())).toEqual({ predecessor_run_id: run.runId });
    // The relation is stored once, in that record: the run's metadata does not repeat it.
    expect(await store.loadRun(successor.runId)).not.toHaveProperty('predecessorRunId');
    expect((await store.listRunsBySession(run.sessionId!)).find((r) => r.runId === successor.runId)).not.toHaveProperty('predecessorRunId');
  });

  it('is refused before anything is written when the predecessor is missing, not suspended or differs', async () => {
    const { run } = await suspendedRun();
    const { run: running } = await runningRoot(store);
    const attempts = [
      { cmd: { runId: uid('n'), agentId: run.agentId, sessionId: run.sessionId, predecessorRunId: uid('ghost') }, error: 'run not found' },
      { cmd: { runId: uid('n'), agentId: running.agentId, sessionId: running.sessionId, predecessorRunId: running.runId }, error: 'run suspension not found' },
      { cmd: { runId: uid('n'), agentId: 'other.agent', sessionId: run.sessionId, predecessorRunId: run.runId }, error: 'run metadata conflict' },
    ];
    for (const attempt of attempts) {
      await expect(store.startRootRun(startCommand(attempt.cmd))).rejects.toThrow(attempt.error);
      await expect(store.loadRun(attempt.cmd.runId)).rejects.toThrow('run not found');
    }
  });

  it('lets only one successor continue a predecessor', async () => {
    const { run } = await suspendedRun();
    const first = { runId: uid('n'), agentId: run.agentId, sessionId: run.sessionId, predecessorRunId: run.runId };
    await store.startRootRun(startCommand(first));
    const second = { ...first, runId: uid('n') };
    await expect(store.startRootRun(startCommand(second))).rejects.toThrow('run metadata conflict');
  });

  it('a child continuation shares the parent', async () => {
    const { run: parent } = await runningRoot(store);
    const child = { runId: uid('c'), agentId: 'c', sessionId: parent.sessionId };
    await store.startChildRun(childCommand(parent, child));
    await store.recordRunSuspension({ runId: child.runId, checkpoint: Buffer.from('x'), record: record(child, RecordType.RunSuspended, {}) });
    const next = { runId: uid('c2'), agentId: 'c', sessionId: parent.sessionId, predecessorRunId: child.runId };
    await expect(store.startChildRun(childCommand(parent, next))).resolves.toMatchObject({ decision: 'proceed' });
    const orphan = { runId: uid('c3'), agentId: 'c', sessionId: parent.sessionId, predecessorRunId: child.runId };
    await expect(store.startRootRun(startCommand(orphan))).rejects.toThrow('run metadata conflict');
  });

  it('appending to a suspended run is refused', async () => {
    const { run } = await suspendedRun();
    await expect(store.appendRunRecord(note(run))).rejects.toThrow('run is not active');
  });
});
