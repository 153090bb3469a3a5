import { EventConflictError, InvalidCursorError, InvalidStoreInputError, RecordType } from '../../core/store';
import { note, openStore, record, runningRoot, startCommand, terminal, uid } from './fixtures';

const { pool, store } = openStore();
afterAll(() => pool.end());

describe('appendRunRecord and exact retries', () => {
  it('a retry equal in every field returns the original id with inserted false', async () => {
    const { run } = await runningRoot(store);
    const rec = note(run, 'once', { turnId: 'turn-1' });
    const first = await store.appendRunRecord(rec);
    expect(first.inserted).toBe(true);
    expect(await store.appendRunRecord({ ...rec, payload: Buffer.from(rec.payload) })).toEqual({ ...first, inserted: false });
    expect((await store.listRunRecords(run.runId, '', 10)).records).toHaveLength(2);
  });

  it('any difference under the same key is an event conflict', async () => {
    const { run } = await runningRoot(store);
    const rec = note(run, 'original', { turnId: 'turn-1' });
    await store.appendRunRecord(rec);
    const variants = [
      { ...rec, turnId: 'turn-2' },
      { ...rec, type: 'agent.other' },
      { ...rec, timestamp: new Date(rec.timestamp.getTime() + 1) },
      { ...rec, payload: Buffer.from('{"text":"changed"}') },
      { ...rec, payload: Buffer.from('{"text": "original"}') }, // same JSON, different bytes
    ];
    for (const variant of variants) await expect(store.appendRunRecord(variant)).rejects.toBeInstanceOf(EventConflictError);
  });

  it('refuses records whose run, agent or session do not match the stored run', async () => {
    const { run } = await runningRoot(store);
    const message = 'run record owner does not match stored run';
    await expect(store.appendRunRecord(note({ ...run, agentId: 'intruder' }))).rejects.toThrow(message);
    await expect(store.appendRunRecord(note({ ...run, sessionId: uid('other') }))).rejects.toThrow(message);
    await expect(store.appendRunRecord(note({ ...run, runId: uid('ghost') }))).rejects.toThrow('run not found');
  });

  it('refuses lifecycle record types and missing fields', async () => {
    const { run } = await runningRoot(store);
    for (const type of [RecordType.RunStarted, RecordType.RunCompleted, RecordType.RunSuspended, RecordType.ChildRunLinked, RecordType.CancellationIntent]) {
      await expect(store.appendRunRecord(record(run, type, {}))).rejects.toBeInstanceOf(InvalidStoreInputError);
    }
    await expect(store.appendRunRecord(note(run, 'x', { key: '' }))).rejects.toThrow('invalid store input: record key is required');
    await expect(store.appendRunRecord(note(run, 'x', { timestamp: new Date(NaN) }))).rejects.toBeInstanceOf(InvalidStoreInputError);
  });
});

describe('appendRunRecords', () => {
  it('writes a batch in order in one transaction; a retry of the batch returns the originals', async () => {
    const { run } = await runningRoot(store);
    const texts = ['one', 'two', 'three', 'four', 'five'];
    const batch = texts.map((text) => note(run, text));
    const first = await store.appendRunRecords(batch);
    expect(first.map((w) => w.inserted)).toEqual(texts.map(() => true));
    // Ids follow the batch's order, as the log's readers page by id.
    expect(first.map((w) => BigInt(w.recordId))).toEqual(first.map((w) => BigInt(w.recordId)).sort((a, b) => (a < b ? -1 : 1)));
    expect(await store.appendRunRecords(batch)).toEqual(first.map((w) => ({ ...w, inserted: false })));
    const stored = (await store.listRunRecords(run.runId, '', 10)).records.slice(1).map((r) => JSON.parse(Buffer.from(r.payload).toString()).text);
    expect(stored).toEqual(texts);
  });

  it('writes nothing when one record of the batch is refused', async () => {
    const { run } = await runningRoot(store);
    const taken = note(run, 'taken');
    await store.appendRunRecord(taken);
    const fresh = note(run, 'fresh');
    await expect(store.appendRunRecords([fresh, { ...taken, payload: Buffer.from('{"text":"other"}') }])).rejects.toBeInstanceOf(EventConflictError);
    expect((await store.listRunRecords(run.runId, '', 10)).records.map((r) => r.key)).not.toContain(fresh.key);
    await expect(store.appendRunRecords([fresh, { ...fresh }])).rejects.toBeInstanceOf(InvalidStoreInputError);
  });
});

describe('strict lifecycle JSON', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');

  async function terminalWith(payload: Buffer) {
    const { run } = await runningRoot(store);
    return store.recordRunTerminal({ runId: run.runId, status: 'completed', record: record(run, RecordType.RunCompleted, payload) });
  }

  it.each([
    ['an unknown field', bytes('{"status":"completed","surprise":1}')],
    ['two JSON values', bytes('{"status":"completed"} {"status":"completed"}')],
    ['null', bytes('null')],
    ['an array', bytes('[{"status":"completed"}]')],
    ['invalid UTF-8', Buffer.concat([bytes('{"status":"completed","error":"'), Buffer.from([0xc3, 0x28]), bytes('"}')])],
    ['truncated JSON', bytes('{"status":"completed"')],
    ['a wrong field type', bytes('{"status":"completed","phase":7}')],
  ])('refuses %s', async (_what, payload) => {
    await expect(terminalWith(payload)).rejects.toBeInstanceOf(InvalidStoreInputError);
  });

  it('stores payloads byte for byte, so escapes round-trip and retries compare bytes', async () => {
    const { run } = await runningRoot(store);
    const escaped = bytes('{"status":"completed","error":"caf\\u00e9 \\"quoted\\" \\ud83d\\ude00 tab\\t"}');
    const done = { runId: run.runId, status: 'completed' as const, record: record(run, RecordType.RunCompleted, escaped) };
    const first = await store.recordRunTerminal(done);
    const stored = (await store.listRunRecords(run.runId, '', 10)).records.find((r) => r.id === first.recordId)!;
    expect(Buffer.from(stored.payload).equals(escaped)).toBe(true);
    expect(JSON.parse(Buffer.from(stored.payload).toString()).error).toBe('café "quoted" 😀 tab\t');
    expect((await store.recordRunTerminal(done)).inserted).toBe(false);
    const sameValueOtherBytes = bytes(JSON.stringify({ status: 'completed', error: 'café "quoted" 😀 tab\t' }));
    await expect(store.recordRunTerminal({ ...done, record: { ...done.record, payload: sameValueOtherBytes } })).rejects.toBeInstanceOf(EventConflictError);
  });
});

describe('paging', () => {
  async function runWithNotes(count: number) {
    const { run } = await runningRoot(store);
    for (let i = 0; i < count; i++) await store.appendRunRecord(note(run, `n${i}`));
    return run; // run_started + count notes
  }

  it('pages oldest first; nextCursor is the last id and empty when nothing follows', async () => {
    const run = await runWithNotes(5); // 6 records
    const first = await store.listRunRecords(run.runId, '', 4);
    expect(first.records).toHaveLength(4);
    expect(first.nextCursor).toBe(first.records[3]!.id);
    const second = await store.listRunRecords(run.runId, first.nextCursor, 4);
    expect(second.records).toHaveLength(2);
    expect(second.nextCursor).toBe('');
    const ids = [...first.records, ...second.records].map((r) => BigInt(r.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
  });

  it('exactly limit records left gives no trailing empty page', async () => {
    const run = await runWithNotes(3); // 4 records
    const page = await store.listRunRecords(run.runId, '', 4);
    expect(page.records).toHaveLength(4);
    expect(page.nextCursor).toBe('');
    const firstTwo = await store.listRunRecords(run.runId, '', 2);
    const lastTwo = await store.listRunRecords(run.runId, firstTwo.nextCursor, 2);
    expect(lastTwo.records).toHaveLength(2);
    expect(lastTwo.nextCursor).toBe('');
  });

  it('a cursor past the end gives an empty page', async () => {
    const run = await runWithNotes(1);
    expect(await store.listRunRecords(run.runId, '999999999999', 10)).toEqual({ records: [], nextCursor: '' });
  });

  it.each(['abc', '-1', '0', '1.5', ' 1', '01', '9999999999999999999', '99999999999999999999'])('refuses the cursor %j', async (cursor) => {
    const run = await runWithNotes(1);
    await expect(store.listRunRecords(run.runId, cursor, 10)).rejects.toThrow(new InvalidCursorError());
  });

  it('limit must be > 0', async () => {
    const run = await runWithNotes(1);
    for (const limit of [0, -1, 1.5]) {
      await expect(store.listRunRecords(run.runId, '', limit)).rejects.toBeInstanceOf(InvalidStoreInputError);
    }
  });

  it("session listing returns every record of the session's runs in commit order; sessionless runs never appear", async () => {
    const { run, sessionId } = await runningRoot(store);
    const second = { runId: uid('run'), agentId: 'b', sessionId };
    await store.startRootRun(startCommand(second));
    const oneShot = { runId: uid('oneshot'), agentId: 'c' };
    await store.startOneShotRun(startCommand(oneShot));
    await store.appendRunRecord(note(run, 'a1'));
    await store.appendRunRecord(note(oneShot, 'never listed'));
    await store.appendRunRecord(note(second, 'b1'));
    await store.recordRunTerminal(terminal(second, 'completed'));

    const all = [];
    let cursor = '';
    do {
      const page = await store.listSessionRunRecords(sessionId, cursor, 2);
      all.push(...page.records);
      cursor = page.nextCursor;
    } while (cursor);
    expect(all.map((r) => [r.runId, r.type])).toEqual([
      [run.runId, 'run_started'],
      [second.runId, 'run_started'],
      [run.runId, 'agent.note'],
      [second.runId, 'agent.note'],
      [second.runId, 'run_completed'],
    ]);
    await expect(store.listSessionRunRecords(uid('missing'), '', 5)).rejects.toThrow('session not found');
  });
});
