import { RecordType } from '../../core/store';
import { decodeTranscriptRecord, readRunLog } from '../../core/transcript';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// Tool calls as real models make them: arguments that are not JSON, a tool that does not exist,
// several calls in one reply, and text beside the calls. Each bad call goes back to the model as a
// tool error it can act on; parallel calls' results go back in order with their ids; the text is kept.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

/** The tool results the model was sent in its second call: each call's id and what it said. */
function toolMessagesOf(query: string): Array<{ tool_call_id: string; content: string }> {
  const second = stack.model.requests.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body).includes(query))[1]!;
  return (second.body.messages as Array<{ role: string; tool_call_id: string; content: string }>).filter((m) => m.role === 'tool');
}

it('hands malformed arguments and an unknown tool back to the model as tool errors, and the task goes on', async () => {
  const query = `tools gone wrong ${Date.now()}`;
  stack.model.on(
    query,
    {
      toolCalls: [
        { id: 'bad-json', name: 'calculator', arguments: '{"expression": "2+' },
        { id: 'no-such', name: 'teleporter', arguments: '{}' },
      ],
    },
    { content: 'Both calls failed, so I answer from what I know: 4.' },
  );
  const submitted = await submitTask(stack.orchestrator, { query });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({
    status: 'TASK_STATUS_COMPLETED',
    result: 'Both calls failed, so I answer from what I know: 4.',
  });
  const results = toolMessagesOf(query);
  expect(results.map((r) => r.tool_call_id)).toEqual(['bad-json', 'no-such']);
  expect(JSON.parse(results[0]!.content)).toMatchObject({ category: 'validation', message: expect.stringMatching(/^invalid arguments for calculator/) });
  expect(results[1]!.content).toMatch(/unknown tool teleporter/);
});

it('runs parallel calls and returns their results in order with their ids, keeping the text beside them', async () => {
  const query = `three sums at once ${Date.now()}`;
  stack.model.on(
    query,
    {
      content: 'Let me work these out.',
      toolCalls: [
        { id: 'sum-a', name: 'calculator', arguments: '{"expression":"1+1"}' },
        { id: 'sum-b', name: 'calculator', arguments: '{"expression":"2+2"}' },
        { id: 'sum-c', name: 'calculator', arguments: '{"expression":"3+3"}' },
      ],
    },
    { content: '2, 4 and 6.' },
  );
  const submitted = await submitTask(stack.orchestrator, { query });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: '2, 4 and 6.' });
  const results = toolMessagesOf(query);
  expect(results.map((r) => r.tool_call_id)).toEqual(['sum-a', 'sum-b', 'sum-c']);
  expect(results.map((r) => r.content)).toEqual([expect.stringContaining('2'), expect.stringContaining('4'), expect.stringContaining('6')]);
  // The text the model wrote beside its calls is in the transcript, with the calls.
  const replies = (await readRunLog(stack.store, submitted.workflow_id)).filter((r) => r.type === RecordType.TranscriptAppended);
  const first = decodeTranscriptRecord(replies[0]!).messages.find((m) => m.role === 'assistant')!;
  expect(first.parts.map((p) => p.kind)).toEqual(['text', 'tool_use', 'tool_use', 'tool_use']);
  expect(first.parts[0]).toMatchObject({ kind: 'text', text: 'Let me work these out.' });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
