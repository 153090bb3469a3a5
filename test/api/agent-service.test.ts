import { status as GrpcStatus } from '@grpc/grpc-js';
import { structToJson } from '../../api/grpc/struct';
import { unaryCall, type ServiceClient } from '../../protos/clients';
import type { ExecuteTaskRequest } from '../../protos/generated/shannon/agent/ExecuteTaskRequest';
import type { TaskUpdate__Output } from '../../protos/generated/shannon/agent/TaskUpdate';
import { grpcError, waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
let agent: ServiceClient<'agent'>;
beforeAll(async () => {
  stack = await startTestStack();
  agent = stack.client('agent');
});
afterAll(() => stack.stop());

const unique = (text: string) => `${text} #${Math.random().toString(36).slice(2, 8)}`;
const toolsOffered = (query: string) =>
  stack.model.requests
    .filter((r) => JSON.stringify(r.body.messages).includes(query))
    .map((r) => ((r.body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name));

it('ExecuteTask runs one agent durably and reports its tool calls, results and metrics', async () => {
  const query = unique('Use the calculator for 6*7');
  stack.model.on(
    query,
    { toolCalls: [{ id: 'call-1', name: 'calculator', arguments: '{"expression":"6*7"}' }], usage: { prompt_tokens: 10, completion_tokens: 5 } },
    { content: 'It is 42.', usage: { prompt_tokens: 20, completion_tokens: 4 } },
  );
  const response = await unaryCall(agent, 'ExecuteTask', { query, available_tools: ['calculator'], config: { max_iterations: 3 } });
  expect(response).toMatchObject({
    status: 'STATUS_CODE_OK',
    result: 'It is 42.',
    final_state: 'AGENT_STATE_COMPLETED',
    error_message: '',
    tool_calls: [{ name: 'calculator', tool_id: 'call-1' }],
    tool_results: [{ tool_id: 'call-1', status: 'STATUS_CODE_OK', output: { structValue: { fields: { value: { numberValue: 42 } } } } }],
    metrics: { agents_used: 1, mode: 'EXECUTION_MODE_STANDARD', token_usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 } },
  });
  expect(structToJson(response.tool_calls[0]!.parameters)).toEqual({ expression: '6*7' });
  // Only the tools the caller named are offered to the model.
  expect(toolsOffered(query)[0]).toEqual(['calculator']);
  // A task like any other: the orchestrator knows it.
  const status = await unaryCall(stack.orchestrator, 'GetTaskStatus', { task_id: response.task_id });
  expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'It is 42.' });
});

it('ExecuteTask reports a timeout when the agent runs past config.timeout_seconds', async () => {
  const query = unique('a slow question');
  stack.model.on(query, { content: 'too late', delayMs: 3_000 });
  const response = await unaryCall(agent, 'ExecuteTask', { query, config: { timeout_seconds: 1 } });
  expect(response).toMatchObject({ status: 'STATUS_CODE_TIMEOUT', final_state: 'AGENT_STATE_FAILED' });
  expect(response.error_message).toMatch(/timed out after 1 s/);
});

it('a call whose deadline passes gets DEADLINE_EXCEEDED, and its agent task still finishes', async () => {
  const query = unique('answer after the deadline');
  stack.model.on(query, { content: 'late but done', delayMs: 1_000 });
  const err = await grpcError(unaryCall(agent, 'ExecuteTask', { query, metadata: { task_id: `deadline-${Date.now()}` } }, { deadlineMs: 300 }));
  expect(err.code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
  const tasks = await unaryCall(stack.orchestrator, 'ListTasks', { limit: 20 });
  const task = tasks.tasks.find((t) => t.query === query)!;
  expect((await waitForFinish(stack.orchestrator, task.task_id)).result).toBe('late but done');
});

it("StreamExecuteTask streams the agent's states, tool calls and results, ending with the answer", async () => {
  const query = unique('Stream the calculator for 2+3');
  stack.model.on(query, { toolCalls: [{ id: 'c-1', name: 'calculator', arguments: '{"expression":"2+3"}' }] }, { content: 'Five.' });
  const updates = await new Promise<TaskUpdate__Output[]>((resolve, reject) => {
    const received: TaskUpdate__Output[] = [];
    const call = agent.StreamExecuteTask({ query, available_tools: ['calculator'] } satisfies ExecuteTaskRequest);
    call.on('data', (update: TaskUpdate__Output) => received.push(update));
    call.on('end', () => resolve(received));
    call.on('error', reject);
  });
  expect(updates[0]!.state).toBe('AGENT_STATE_PLANNING');
  const toolCall = updates.find((u) => u.tool_call);
  expect(toolCall).toMatchObject({ state: 'AGENT_STATE_EXECUTING', tool_call: { name: 'calculator', tool_id: 'c-1' } });
  expect(updates.find((u) => u.tool_result)).toMatchObject({ tool_result: { tool_id: 'c-1', status: 'STATUS_CODE_OK' } });
  expect(updates.at(-1)).toMatchObject({ state: 'AGENT_STATE_COMPLETED', message: 'Five.', progress: 1 });
  expect(new Set(updates.map((u) => u.task_id)).size).toBe(1);
});

it('GetCapabilities, HealthCheck, DiscoverTools and GetToolCapability describe the agent and its tools', async () => {
  const capabilities = await unaryCall(agent, 'GetCapabilities', {});
  expect(capabilities).toMatchObject({ supported_modes: ['EXECUTION_MODE_SIMPLE', 'EXECUTION_MODE_STANDARD'], max_memory_mb: '512' });
  expect(capabilities.supported_tools).toEqual(expect.arrayContaining(['calculator', 'file_read', 'file_write']));
  expect(capabilities.version).toMatch(/^\d+\.\d+\.\d+/);

  const health = await unaryCall(agent, 'HealthCheck', {});
  expect(health).toMatchObject({ healthy: true, message: 'ok' });
  expect(Number(health.uptime_seconds)).toBeGreaterThanOrEqual(0);
  expect(health.memory_usage_percent).toBeGreaterThan(0);

  const math = await unaryCall(agent, 'DiscoverTools', { query: 'arithmetic expression', max_results: 10 });
  expect(math.tools[0]).toMatchObject({ id: 'calculator', category: 'math', is_dangerous: false, version: '1.0.0' });
  const safeFiles = await unaryCall(agent, 'DiscoverTools', { categories: ['files'], exclude_dangerous: true });
  expect(safeFiles.tools.map((t) => t.name)).toEqual(['file_read', 'memory_read']);
  const one = await unaryCall(agent, 'DiscoverTools', { max_results: 1 });
  expect(one.tools).toHaveLength(1);

  const { tool } = await unaryCall(agent, 'GetToolCapability', { tool_id: 'file_write' });
  expect(tool).toMatchObject({ name: 'file_write', is_dangerous: true, required_permissions: ['approval'] });
  expect(structToJson(tool!.input_schema)).toMatchObject({ type: 'object', required: expect.arrayContaining(['path', 'content']) });
  expect((await grpcError(unaryCall(agent, 'GetToolCapability', { tool_id: 'nope' }))).code).toBe(GrpcStatus.NOT_FOUND);
});

it("refuses bad input, and another tenant's task ids", async () => {
  const invalid: ExecuteTaskRequest[] = [
    { query: '' },
    { query: 'q', mode: 'EXECUTION_MODE_COMPLEX' },
    { query: 'q', available_tools: ['no_such_tool'] },
    { query: 'q', config: { timeout_seconds: -1 } },
    { query: 'q', config: { max_iterations: -2 } },
  ];
  for (const request of invalid) expect((await grpcError(unaryCall(agent, 'ExecuteTask', request))).code).toBe(GrpcStatus.INVALID_ARGUMENT);
  expect((await grpcError(unaryCall(agent, 'DiscoverTools', { max_results: -1 }))).code).toBe(GrpcStatus.INVALID_ARGUMENT);

  const query = unique('tenant question');
  stack.model.on(query, { content: 'mine' });
  const mine = await unaryCall(agent, 'ExecuteTask', { query });
  const other = stack.client('agent', await stack.newApiKey({ tenantId: `other-${Date.now()}`, userId: 'eve', roles: [] }));
  // Naming another tenant's task id runs a task of one's own.
  const reuse = await unaryCall(other, 'ExecuteTask', { query, metadata: { task_id: mine.task_id } });
  expect(reuse.task_id).not.toBe(mine.task_id);
  expect((await grpcError(unaryCall(stack.client('agent', 'weft_bad_key'), 'GetCapabilities', {}))).code).toBe(GrpcStatus.UNAUTHENTICATED);
});
