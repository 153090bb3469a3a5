import { RecordType, type RecordPage, type StoredRecord } from '../../core/store';
import { buildMessagesFromRunLog, transcriptRecord, validateTranscript, type Message } from '../../core/transcript';
import { at, openStore, runningRoot, uid } from '../store/fixtures';

const { pool, store } = openStore();
afterAll(() => pool.end());

const toolTurn: Message[] = [
  { role: 'user', parts: [{ kind: 'text', text: 'What is 6*7 and 2+2?' }] },
  {
    role: 'assistant',
    parts: [
      { kind: 'thinking', text: 'two calculations', signature: 'sig-1' },
      { kind: 'tool_use', id: 'call-a', name: 'calculator', input: { expression: '6*7' } },
      { kind: 'tool_use', id: 'call-b', name: 'calculator', input: { expression: '2+2' } },
    ],
  },
  {
    role: 'user',
    parts: [
      { kind: 'tool_result', toolUseId: 'call-b', content: { value: 4 } },
      { kind: 'tool_result', toolUseId: 'call-a', content: { value: 42 } },
    ],
  },
  { role: 'assistant', parts: [{ kind: 'text', text: '42 and 4.' }] },
];

describe('validateTranscript', () => {
  it('accepts tool uses answered one to one by the next user message', () => {
    expect(() => validateTranscript(toolTurn)).not.toThrow();
  });

  const broken: Array<[string, Message[], RegExp]> = [
    ['a missing result', [toolTurn[0]!, toolTurn[1]!, { role: 'user', parts: [toolTurn[2]!.parts[0]!] }], /no result for tool use call-a/],
    [
      'a result for an unknown id',
      [toolTurn[0]!, toolTurn[1]!, { role: 'user', parts: [...toolTurn[2]!.parts, { kind: 'tool_result', toolUseId: 'call-z', content: 1 }] }],
      /call-z answers no tool use/,
    ],
    ['a duplicated result', [toolTurn[0]!, toolTurn[1]!, { role: 'user', parts: [...toolTurn[2]!.parts, toolTurn[2]!.parts[0]!] }], /appears twice/],
    [
      'results split over two messages',
      [toolTurn[0]!, toolTurn[1]!, { role: 'user', parts: [toolTurn[2]!.parts[0]!] }, { role: 'user', parts: [toolTurn[2]!.parts[1]!] }],
      /no result for tool use call-a/,
    ],
    ['an assistant message instead of results', [toolTurn[0]!, toolTurn[1]!, toolTurn[3]!], /need a user message/],
    ['results with no tool use before them', [toolTurn[0]!, toolTurn[2]!], /without a preceding tool use/],
    ['pending tool uses at the end', [toolTurn[0]!, toolTurn[1]!], /have no results/],
    ['a tool use from the user', [{ role: 'user', parts: [{ kind: 'tool_use', id: 'x', name: 'y', input: {} }] }], /user message cannot use tools/],
  ];
  it.each(broken)('refuses %s', (_what, messages, error) => {
    expect(() => validateTranscript(messages)).toThrow(error);
  });
});

describe('buildMessagesFromRunLog', () => {
  it('rebuilds the exact messages, in order, across pages', async () => {
    const { run } = await runningRoot(store);
    const owner = (key: string) => ({ key, runId: run.runId, agentId: run.agentId, sessionId: run.sessionId, timestamp: at() });
    await store.appendRunRecord(transcriptRecord(owner('seed'), RecordType.TranscriptSeeded, { messages: [toolTurn[0]!] }));
    await store.appendRunRecord({ ...owner('unrelated'), type: 'agent.note', payload: Buffer.from('{}') });
    await store.appendRunRecord(transcriptRecord(owner('step-1'), RecordType.TranscriptAppended, { messages: [toolTurn[1]!] }));
    await store.appendRunRecord(transcriptRecord(owner('results-1'), RecordType.TranscriptAppended, { messages: [toolTurn[2]!] }));
    await store.appendRunRecord(
      transcriptRecord(owner('step-2'), RecordType.TranscriptAppended, {
        messages: [toolTurn[3]!],
        model: 'm',
        usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
      }),
    );
    expect(await buildMessagesFromRunLog(store, run.runId, 2)).toEqual(toolTurn);
    expect(await buildMessagesFromRunLog(store, run.runId)).toEqual(toolTurn);
  });

  it('refuses malformed transcript payloads before they are stored', () => {
    const owner = { key: uid('k'), runId: 'r', agentId: 'a', timestamp: at() };
    expect(() => transcriptRecord(owner, RecordType.TranscriptAppended, { messages: [] })).toThrow();
  });

  it('refuses a page that makes no forward progress', async () => {
    const record = { id: '5', type: 'agent.note', payload: Buffer.from('{}') } as unknown as StoredRecord;
    const stuck = { listRunRecords: async (): Promise<RecordPage> => ({ records: [record], nextCursor: '5' }) };
    await expect(buildMessagesFromRunLog(stuck, 'run')).rejects.toThrow(/no forward progress/);
    const empty = { listRunRecords: async (): Promise<RecordPage> => ({ records: [], nextCursor: '9' }) };
    await expect(buildMessagesFromRunLog(empty, 'run')).rejects.toThrow(/no forward progress/);
  });
});
