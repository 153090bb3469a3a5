import type { temporal } from '@temporalio/proto';
import { submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { TEST_MODEL, testCatalog } from '../support/test-catalog';
import { itLeavesEveryTaskVerified } from '../support/verification';

// Providers that fail the way real ones do: a 429 or 503 asking to wait (Retry-After), an error
// whose body says what was wrong, a model that keeps failing while the catalog has another in its
// tier. The wait is Temporal's retry of the model step, not a sleep inside it; the provider's words
// reach the task's error; the fallback answers.

const FALLBACK_MODEL = 'scripted-fallback';
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({
    // A second MEDIUM model, dearer, on a provider of its own: the tier's fallback.
    catalog: (baseURL) =>
      testCatalog(baseURL, (document) => {
        document.providers.push({ id: 'scripted-backup', base_url: baseURL, timeout_ms: 10_000 });
        document.models.push({ id: FALLBACK_MODEL, provider: 'scripted-backup', tier: 'MEDIUM', context_window: 32_000, prompt_per_1k: 0.01 });
      }),
  });
});
afterAll(() => stack.stop());

const unique = (label: string) => `${label} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const asked = (query: string) => stack.model.requests.filter((r) => JSON.stringify(r.body.messages).includes(query));

/** The model step's attempts as Temporal recorded them, with the failure each retry followed. */
async function modelStepAttempts(workflowId: string) {
  const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, string>();
  const attempts: Array<{ attempt: number; lastFailure?: string }> = [];
  for (const event of history.events ?? []) {
    const a = event as temporal.api.history.v1.IHistoryEvent;
    if (a.activityTaskScheduledEventAttributes) scheduled.set(String(a.eventId), a.activityTaskScheduledEventAttributes.activityType?.name ?? '');
    const started = a.activityTaskStartedEventAttributes;
    if (started && scheduled.get(String(started.scheduledEventId)) === 'runModelStep')
      attempts.push({ attempt: started.attempt ?? 1, ...(started.lastFailure?.message ? { lastFailure: started.lastFailure.message } : {}) });
  }
  return attempts;
}

it.each([
  [429, 'rate limited, slow down'],
  [503, 'overloaded, come back later'],
])('waits out a %i with Retry-After through Temporal retrying the model step', async (status, message) => {
  const query = unique(`Answer after a ${status}`);
  const busy = { status, content: message, headers: { 'retry-after': '2' } };
  stack.model.on((text, body) => text.includes(query) && body.model === TEST_MODEL, busy, { content: 'answered after the wait' });
  // The tier's other model is busy too: nobody can answer before the wait is over.
  stack.model.on((text, body) => text.includes(query) && body.model === FALLBACK_MODEL, busy);
  const submitted = await submitTask(stack.orchestrator, { query });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'answered after the wait' });
  const requests = asked(query);
  expect(requests.map((r) => r.body.model)).toEqual([TEST_MODEL, FALLBACK_MODEL, TEST_MODEL]);
  // Asked again no sooner than the provider said.
  const [first, last] = [requests[0]!, requests.at(-1)!];
  expect(last.arrivedAt - first.arrivedAt).toBeGreaterThanOrEqual(1_900);
  const attempts = await modelStepAttempts(submitted.workflow_id);
  expect(attempts.at(-1)).toMatchObject({ attempt: 2, lastFailure: expect.stringContaining(`${status}`) });
});

it("puts the provider's own words into the task's error when it refuses the request", async () => {
  const query = unique('Far too long a prompt');
  stack.model.on(query, { status: 400, content: "This model's maximum context length is 8192 tokens; your messages resulted in 9120 tokens." });
  const submitted = await submitTask(stack.orchestrator, { query });
  const status = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(status.status).toBe('TASK_STATUS_FAILED');
  expect(status.error_message).toContain('maximum context length is 8192 tokens; your messages resulted in 9120 tokens');
  expect(asked(query)).toHaveLength(1); // a 400 is never retried
});

it("moves to the tier's fallback model when the first keeps failing, and records who answered", async () => {
  const query = unique('Answer from the backup');
  stack.model.on((text, body) => text.includes(query) && body.model === TEST_MODEL, { status: 500, content: 'primary is down' });
  stack.model.on((text, body) => text.includes(query) && body.model === FALLBACK_MODEL, { content: 'the backup answered' });
  const submitted = await submitTask(stack.orchestrator, { query });
  const status = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'the backup answered' });
  expect(status.metrics?.token_usage?.model).toBe(FALLBACK_MODEL);
});

it('fails the step after five attempts when every model of the tier keeps failing, though its retry policy allows more for a dead worker', async () => {
  const query = unique('Nobody can answer');
  stack.model.on(query, { status: 500, content: 'everyone is down' });
  const submitted = await submitTask(stack.orchestrator, { query });
  const status = await waitForFinish(stack.orchestrator, submitted.task_id, 60_000);
  expect(status.status).toBe('TASK_STATUS_FAILED');
  expect(status.error_message).toContain('(after 5 attempts)');
  expect((await modelStepAttempts(submitted.workflow_id)).map((a) => a.attempt)).toEqual([5]);
}, 90_000);

itLeavesEveryTaskVerified(() => stack.everyTask());
