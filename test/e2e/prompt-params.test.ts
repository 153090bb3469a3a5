import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { jsonToStruct } from '../../api/grpc/struct';
import { toolMetadata, type ToolContext } from '../../core/tools/tool';
import { grpcError, submitTask, waitForFinish } from '../support/grpc';
import { startTestStack, testToolRegistry, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// A task's context.prompt_params (Shannon's name) travel from SubmitTask through the workflow to
// every tool call's context, where vendor adapters read them (the seed's account_id injection).

const contexts: ToolContext[] = [];
const accountTool = {
  ...toolMetadata({ name: 'account_lookup', version: '1.0.0', description: "looks up the caller's account", category: 'test', parameters: { type: 'object' } }),
  execute: async (_args: Record<string, unknown>, context: ToolContext) => {
    contexts.push(context);
    return { account: context.promptParams?.account_id ?? 'none' };
  },
};

let stack: TestStack;
beforeAll(async () => {
  const tools = testToolRegistry();
  tools.add([accountTool]);
  stack = await startTestStack({ tools });
});
afterAll(() => stack.stop());

it('reach the tools of the task that carries them', async () => {
  const query = `which account am I? ${randomUUID()}`;
  stack.model.on(query, { toolCalls: [{ id: 'acct-1', name: 'account_lookup', arguments: '{}' }] }, { content: 'account acct-42' });
  const submitted = await submitTask(stack.orchestrator, {
    query,
    context: jsonToStruct({ prompt_params: { account_id: 'acct-42', region: 'eu', verbose: true } }),
  });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'account acct-42' });
  expect(contexts.at(-1)).toMatchObject({ taskId: submitted.task_id, promptParams: { account_id: 'acct-42', region: 'eu', verbose: true } });
});

it('are named scalars: anything else is refused at the door', async () => {
  for (const prompt_params of ['acct-42', ['acct-42'], { nested: { account_id: 'x' } }]) {
    const refused = await grpcError(submitTask(stack.orchestrator, { query: 'bad params', context: jsonToStruct({ prompt_params }) }));
    expect([refused.code, refused.details]).toEqual([GrpcStatus.INVALID_ARGUMENT, 'context.prompt_params must be an object of strings, numbers and booleans']);
  }
});

itLeavesEveryTaskVerified(() => stack.everyTask());
