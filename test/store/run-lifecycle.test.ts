import {
  EventConflictError,
  InvalidStoreInputError,
  RecordType,
  RunCancellationReasonConflictError,
  RunSuspensionConflictError,
  RunTerminalOutcomeConflictError,
} from '../../core/store';
import { at, note, openStore, record, runningRoot, startCommand, terminal, uid } from './fixtures';

const { pool, store } = openStore();
afterAll(() => pool.end());

const recordsOf = async (runId: string) =>
  (await store.listRunRecords(runId, '', 100)).records.map((r) => ({ type: r.type, payload: JSON.parse(Buffer.from(r.payload).toString()) }));

const intent = (run: { runId: string; agentId: string; sessionId?: string }, reason: string) => ({
  runId: run.runId,
  reason,
  record: record(run, RecordType.CancellationIntent, { reason }),
});

describe('cancellation provenance: exactly three valid shapes', () => {
  it('explicit request: meta reason R, one intent record with R, terminal record with R', async () => {
    const { run } = await runningRoot(store);
    const cancel = intent(run, 'user_requested');
    await store.recordRunCancellation(cancel);
    expect((await store.loadRun(run.runId)).status).toBe('running'); // the status does not change
    await store.recordRunCancellation(cancel); // exact retry
    await expect(store.recordRunCancellation(intent(run, 'other_reason'))).rejects.toThrow(new RunCancellationReasonConflictError());
    await expect(store.recordRunTerminal(terminal(run, 'canceled', { reason: 'engine_canceled' }))).rejects.toThrow('run cancellation reason conflict');
    await store.recordRunTerminal(terminal(run, 'canceled', { reason: 'user_requested' }));
    const meta = await store.loadRun(run.runId);
    expect(meta).toMatchObject({ status: 'canceled', cancellationReason: 'user_requested' });
    expect(await recordsOf(run.runId)).toEqual([
      { type: 'run_started', payload: {} },
      { type: 'runtime.cancellation_intent', payload: { reason: 'user_requested' } },
      { type: 'run_completed', payload: { status: 'canceled', reason: 'user_requested' } },
    ]);
  });

  it('start on an ended session: session_ended in meta, no intent record', async () => {
    const sessionId = uid('sess');
    await store.createSession(sessionId, at());
    await store.endSession(sessionId, at());
    const run = { runId: uid('run'), agentId: 'a', sessionId };
    await store.startRootRun(startCommand(run));
    expect((await store.loadRun(run.runId)).cancellationReason).toBe('session_ended');
    expect((await recordsOf(run.runId)).map((r) => r.type)).toEqual(['run_started', 'run_completed']);
  });

  it('engine cancellation without a request: empty meta reason, terminal reason engine_canceled', async () => {
    const { run } = await runningRoot(store);
    await expect(store.recordRunTerminal(terminal(run, 'canceled', { reason: 'user_requested' }))).rejects.toBeInstanceOf(RunCancellationReasonConflictError);
    await expect(store.recordRunTerminal(terminal(run, 'canceled'))).rejects.toBeInstanceOf(RunCancellationReasonConflictError);
    await store.recordRunTerminal(terminal(run, 'canceled', { reason: 'engine_canceled' }));
    expect(await store.loadRun(run.runId)).toMatchObject({ status: 'canceled', cancellationReason: '' });
    expect((await recordsOf(run.runId)).map((r) => r.type)).toEqual(['run_started', 'run_completed']);
  });

  it('a cancellation intent needs a matching reason and an active run', async () => {
    const { run } = await runningRoot(store);
    const cancel = intent(run, 'r1');
    await expect(store.recordRunCancellation({ ...cancel, reason: 'r2' })).rejects.toBeInstanceOf(InvalidStoreInputError);
    await expect(store.recordRunCancellation({ ...cancel, reason: '' })).rejects.toBeInstanceOf(InvalidStoreInputError);
    await store.recordRunTerminal(terminal(run, 'completed'));
    await expect(store.recordRunCancellation(cancel)).rejects.toThrow('run is not active');
  });
});

describe('terminal', () => {
  it('stores the final status and run_completed; an exact retry returns the original record', async () => {
    const { run } = await runningRoot(store);
    const done = terminal(run, 'failed', { error: 'boom', phase: 'planning' });
    const first = await store.recordRunTerminal({ ...done, phase: 'planning' });
    expect(first.inserted).toBe(true);
    expect(await store.recordRunTerminal({ ...done, phase: 'planning' })).toEqual({ recordId: first.recordId, inserted: false });
    expect((await store.loadRun(run.runId)).status).toBe('failed');
  });

  it('a different outcome is a terminal outcome conflict; the same outcome with another key an event conflict', async () => {
    const { run } = await runningRoot(store);
    await store.recordRunTerminal(terminal(run, 'completed'));
    await expect(store.recordRunTerminal(terminal(run, 'failed'))).rejects.toThrow(new RunTerminalOutcomeConflictError());
    await expect(store.recordRunTerminal(terminal(run, 'completed'))).rejects.toBeInstanceOf(EventConflictError);
  });

  it('payload status and phase must match the command', async () => {
    const { run } = await runningRoot(store);
    const done = terminal(run, 'completed');
    await expect(store.recordRunTerminal({ ...done, status: 'failed' })).rejects.toBeInstanceOf(InvalidStoreInputError);
    await expect(store.recordRunTerminal({ ...done, phase: 'x' })).rejects.toBeInstanceOf(InvalidStoreInputError);
    await expect(store.recordRunTerminal({ ...done, runId: uid('other') })).rejects.toThrow('run record owner does not match stored run');
    await expect(store.recordRunTerminal(terminal({ ...run, runId: uid('ghost') }, 'completed'))).rejects.toThrow('run not found');
  });

  it('a new record on a stopped run is refused; an exact retry of an earlier one still succeeds', async () => {
    const { run } = await runningRoot(store);
    const earlier = note(run, 'before the end');
    const written = await store.appendRunRecord(earlier);
    await store.recordRunTerminal(terminal(run, 'completed'));
    await expect(store.appendRunRecord(note(run, 'after the end'))).rejects.toThrow('run is not active');
    expect(await store.appendRunRecord(earlier)).toEqual({ recordId: written.recordId, inserted: false });
  });
});

describe('suspension', () => {
  it('stores the opaque checkpoint bytes, run_suspended and the status together', async () => {
    const { run } = await runningRoot(store);
    const checkpoint = Buffer.from([0, 255, 1, 254, 10]);
    const suspension = { runId: run.runId, checkpoint, record: record(run, RecordType.RunSuspended, { reason: 'await' }) };
    const written = await store.recordRunSuspension(suspension);
    expect((await store.loadRun(run.runId)).status).toBe('suspended');
    const loaded = await store.loadRunSuspension(run.runId);
    expect(loaded.checkpoint.equals(checkpoint)).toBe(true);
    expect(loaded.recordId).toBe(written.recordId);
    expect(await store.recordRunSuspension(suspension)).toEqual({ recordId: written.recordId, inserted: false });
    await expect(store.recordRunSuspension({ ...suspension, checkpoint: Buffer.from('other') })).rejects.toThrow(new RunSuspensionConflictError());
  });

  it('answers "run suspension not found" for a run never suspended', async () => {
    const { run } = await runningRoot(store);
    await expect(store.loadRunSuspension(run.runId)).rejects.toThrow('run suspension not found');
    await expect(store.loadRunSuspension(uid('ghost'))).rejects.toThrow('run not found');
  });

  it('a suspended run can still end', async () => {
    const { run } = await runningRoot(store);
    await store.recordRunSuspension({ runId: run.runId, checkpoint: Buffer.from('c'), record: record(run, RecordType.RunSuspended, {}) });
    await store.recordRunTerminal(terminal(run, 'canceled', { reason: 'engine_canceled' }));
    expect((await store.loadRun(run.runId)).status).toBe('canceled');
  });
});
