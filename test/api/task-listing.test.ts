import { status as GrpcStatus } from '@grpc/grpc-js';
import { callUnary } from '../../protos/clients';
import type { GetSessionContextResponse__Output } from '../../protos/generated/shannon/orchestrator/GetSessionContextResponse';
import type { ListTasksRequest } from '../../protos/generated/shannon/orchestrator/ListTasksRequest';
import type { ListTasksResponse__Output } from '../../protos/generated/shannon/orchestrator/ListTasksResponse';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import { grpcError, submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const listTasks = (client: OrchestratorServiceClient, request: ListTasksRequest) =>
  callUnary<ListTasksRequest, ListTasksResponse__Output>(client.ListTasks, client, request);
const sessionContext = (client: OrchestratorServiceClient, sessionId: string) =>
  callUnary<{ session_id: string }, GetSessionContextResponse__Output>(client.GetSessionContext, client, { session_id: sessionId });

it("lists the tenant's tasks with filters, paging and a total, and a session's context", async () => {
  const session = `listing-${Date.now()}`;
  stack.model.on('listing question', { content: 'answer', usage: { prompt_tokens: 3, completion_tokens: 2 } });
  const ids: string[] = [];
  for (const user of ['ann', 'ann', 'ben']) {
    const submitted = await submitTask(stack.orchestrator, { query: `listing question for ${user}`, metadata: { user_id: user, session_id: session } });
    await waitForFinish(stack.orchestrator, submitted.task_id);
    ids.push(submitted.task_id);
  }
  const all = await listTasks(stack.orchestrator, { session_id: session });
  expect(all.total_count).toBe(3);
  expect(all.tasks.map((t) => t.task_id)).toEqual([...ids].reverse()); // newest first
  expect(all.tasks[0]).toMatchObject({ status: 'TASK_STATUS_COMPLETED', mode: 'EXECUTION_MODE_STANDARD', total_token_usage: { total_tokens: 5 } });

  const ann = await listTasks(stack.orchestrator, { session_id: session, user_id: 'ann', limit: 1, offset: 1 });
  expect(ann).toMatchObject({ total_count: 2, tasks: [{ task_id: ids[0] }] });
  const past = await listTasks(stack.orchestrator, { session_id: session, offset: 10 });
  expect(past).toMatchObject({ total_count: 3, tasks: [] });
  const failed = await listTasks(stack.orchestrator, { session_id: session, filter_status: 'TASK_STATUS_FAILED' });
  expect(failed.total_count).toBe(0);

  const context = await sessionContext(stack.orchestrator, session);
  expect(context.recent_tasks).toHaveLength(3);
  expect(context.session_token_usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 });

  // Another tenant sees none of it.
  const other = await stack.clientFor({ tenantId: 'listing-other', userId: 'x', roles: [] });
  expect((await listTasks(other, { session_id: session })).total_count).toBe(0);
  expect((await grpcError(sessionContext(other, session))).code).toBe(GrpcStatus.NOT_FOUND);
});

it('refuses bad paging with INVALID_ARGUMENT', async () => {
  for (const request of [{ limit: -1 }, { offset: -5 }, { limit: 1000 }]) {
    expect((await grpcError(listTasks(stack.orchestrator, request))).code).toBe(GrpcStatus.INVALID_ARGUMENT);
  }
  expect((await grpcError(sessionContext(stack.orchestrator, ''))).code).toBe(GrpcStatus.INVALID_ARGUMENT);
});
