import { RecordType, type RecordPage, type RuntimeStore } from '../../core/store';
import { buildMessagesFromRunLog, compactionRecord, runTranscripts, summaryMessage, transcriptRecord, userText, assistantText } from '../../core/transcript';
import { countMessageTokens, messageTokensAtMost } from '../../core/llm/tokenizer';
import { at, openStore, runningRoot } from '../store/fixtures';

// A worker keeps each run's transcript between steps and reads only the records it has not seen;
// the log stays the truth, so every view must equal a full replay.

const { pool, store } = openStore();
afterAll(() => pool.end());

/** The store, counting the records each listRunRecords call returns. */
function countingReads(): { reads: Pick<RuntimeStore, 'listRunRecords'>; recordsRead: () => number } {
  let read = 0;
  return {
    reads: {
      listRunRecords: async (runId, cursor, limit): Promise<RecordPage> => {
        const page = await store.listRunRecords(runId, cursor, limit);
        read += page.records.length;
        return page;
      },
    },
    recordsRead: () => read,
  };
}

async function runWithSteps(steps: number) {
  const { run } = await runningRoot(store);
  const owner = (key: string) => ({ key, runId: run.runId, agentId: run.agentId, sessionId: run.sessionId, timestamp: at() });
  await store.appendRunRecord(transcriptRecord(owner('seed'), RecordType.TranscriptSeeded, { messages: [userText('count with me')] }));
  const step = async (n: number) => {
    await store.appendRunRecord(
      transcriptRecord(owner(`step-${n}`), RecordType.TranscriptAppended, { messages: [assistantText(`${n}`), userText(`and ${n + 1}?`)] }),
    );
    await store.appendRunRecord({ ...owner(`note-${n}`), type: 'agent.note', payload: Buffer.from('{}') });
  };
  for (let n = 0; n < steps; n++) await step(n);
  return { run, owner, step };
}

describe('a run transcript kept between steps', () => {
  it('reads only the records after the last one it replayed, and equals a full replay each time', async () => {
    const { run, step } = await runWithSteps(3);
    const { reads, recordsRead } = countingReads();
    const transcripts = runTranscripts(reads);

    expect(await transcripts.messagesOf(run.runId)).toEqual(await buildMessagesFromRunLog(store, run.runId));
    expect(recordsRead()).toBe(8); // run start, seed, and two records for each of 3 steps
    for (let n = 3; n < 6; n++) {
      await step(n);
      const before = recordsRead();
      expect(await transcripts.messagesOf(run.runId)).toEqual(await buildMessagesFromRunLog(store, run.runId));
      expect(recordsRead() - before).toBe(2);
    }
  });

  it('catches up on steps another worker served, and applies a compaction to what it holds', async () => {
    const { run, owner, step } = await runWithSteps(2);
    const here = runTranscripts(store);
    const elsewhere = runTranscripts(store);
    await here.messagesOf(run.runId);
    await step(2);
    await elsewhere.messagesOf(run.runId);
    await store.appendRunRecord(
      compactionRecord(owner('compacted'), {
        summary: 'counted to 2',
        replacedMessages: 5,
        replacedTokens: 20,
        keptTurns: 1,
        model: 'm',
        usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
      }),
    );
    await step(3);

    const full = await buildMessagesFromRunLog(store, run.runId);
    expect(full[0]).toEqual(summaryMessage('counted to 2'));
    expect(await here.messagesOf(run.runId)).toEqual(full);
    expect(await elsewhere.messagesOf(run.runId)).toEqual(full);
  });

  it('hands out a copy: a step that adds to its messages does not change the next step', async () => {
    const { run } = await runWithSteps(1);
    const transcripts = runTranscripts(store);
    const first = await transcripts.messagesOf(run.runId);
    first.push(userText('only in this step'));
    expect(await transcripts.messagesOf(run.runId)).toHaveLength(first.length - 1);
  });
});

describe('token counts of a growing transcript', () => {
  it('count a message once and give the same totals as counting every message afresh', () => {
    const messages = Array.from({ length: 40 }, (_, n) => (n % 2 === 0 ? userText(`question ${n} about durable execution`) : assistantText(`answer ${n}`)));
    const fresh = (list: typeof messages) => list.map((m) => JSON.parse(JSON.stringify(m)) as (typeof messages)[number]);
    for (const length of [10, 25, 40]) {
      expect(countMessageTokens(messages.slice(0, length), 'o200k_base', 'be brief')).toBe(
        countMessageTokens(fresh(messages.slice(0, length)), 'o200k_base', 'be brief'),
      );
      expect(messageTokensAtMost(messages.slice(0, length))).toBe(messageTokensAtMost(fresh(messages.slice(0, length))));
    }
    expect(countMessageTokens(messages, 'cl100k_base')).toBe(countMessageTokens(fresh(messages), 'cl100k_base'));
  });
});
