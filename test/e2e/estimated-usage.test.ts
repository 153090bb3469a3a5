import { RecordType } from '../../core/store';
import { decodeTranscriptRecord, readRunLog } from '../../core/transcript';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// A STANDARD task on a provider that reports no usage: its tokens are Weft's count, marked
// estimated in the step's record, the task's status and its totals, and a budget binds on them.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const longAnswer = Array.from({ length: 40 }, (_, i) => `Point ${i + 1}: durable execution records each step before acting on it.`).join(' ');

it('reports estimated, non-zero tokens for a task whose provider reported none', async () => {
  stack.model.on('usage-free provider question', { content: longAnswer, omitUsage: true });
  const submitted = await submitTask(stack.orchestrator, { query: 'usage-free provider question' });
  const status = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(status.status).toBe('TASK_STATUS_COMPLETED');
  const usage = status.metrics!.token_usage!;
  expect(usage.estimated).toBe(true);
  expect(usage.prompt_tokens).toBeGreaterThan(0);
  expect(usage.completion_tokens).toBeGreaterThan(400);
  expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  // The step's record says so too, and a rebuild of the run reads the same counts.
  const reply = (await readRunLog(stack.store, submitted.workflow_id)).find((record) => record.type === RecordType.TranscriptAppended)!;
  expect(decodeTranscriptRecord(reply).usage).toMatchObject({ estimated: true, completionTokens: usage.completion_tokens });
});

it('ends a task BUDGET_EXCEEDED when its estimated tokens pass its token budget', async () => {
  stack.model.on('usage-free budget question', { content: longAnswer, omitUsage: true });
  // Above the prompt (the step's reservation passes), below prompt and answer.
  const submitted = await submitTask(stack.orchestrator, { query: 'usage-free budget question', metadata: { token_budget: 200 } });
  const status = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(status).toMatchObject({ status: 'TASK_STATUS_FAILED', error_message: expect.stringMatching(/^BUDGET_EXCEEDED/) });
  expect(status.metrics!.token_usage).toMatchObject({ estimated: true });
  expect(status.metrics!.token_usage!.total_tokens).toBeGreaterThan(200);
});

itLeavesEveryTaskVerified(() => stack.everyTask());
