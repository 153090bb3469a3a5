import { createDestinationPolicy } from '../../core/tools/outbound/destination-policy';
import { createOutboundHttp } from '../../core/tools/outbound/outbound-http';
import { connectMcpServer, type McpServerTools } from '../../core/tools/mcp/mcp-server';
import { loadOpenApiSpec } from '../../core/tools/openapi/openapi-spec';
import { openApiSourceSchema, openApiTools } from '../../core/tools/openapi/openapi-tools';
import { listTaskEvents } from '../../core/events/event-log';
import { unaryCall } from '../../protos/clients';
import { submitTask, waitForFinish } from '../support/grpc';
import { McpTestServer } from '../support/mcp-test-server';
import { seen, startPetStore } from '../support/pet-store';
import { startTestStack, testToolRegistry, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { secretsFrom } from '../../core/secrets';

// The scripted model drives an agent that calls an MCP tool, an OpenAPI operation and the Python
// sandbox in one task, through the worker's activities, and answers from their results.

const mcpServer = new McpTestServer();
let petStore: Awaited<ReturnType<typeof startPetStore>>;
let mcp: McpServerTools;
let stack: TestStack;

beforeAll(async () => {
  await mcpServer.start();
  petStore = await startPetStore();
  const outbound = createOutboundHttp({
    policy: createDestinationPolicy('TEST_ALLOWED_DOMAINS', ['127.0.0.1']),
    timeoutMs: 5_000,
    breakerFailures: 5,
    breakerRecoveryMs: 1_000,
    maxAttempts: 2,
  });
  const tools = testToolRegistry();
  mcp = await connectMcpServer({ name: 'weather', url: mcpServer.url, cost_per_use: 0.25 }, outbound, { secrets: secretsFrom({}), defaultRateLimit: 60 });
  tools.add(mcp.tools);
  const pets = openApiSourceSchema.parse({ name: 'pets', spec_url: `${petStore.base}/openapi.json`, auth: { type: 'bearer', token_env: 'PET_TOKEN' } });
  tools.add(openApiTools(await loadOpenApiSpec({ url: pets.spec_url! }, outbound, 1024 * 1024), pets, outbound, secretsFrom({ PET_TOKEN: 'pet-token' })));
  stack = await startTestStack({ tools });
});
afterAll(async () => {
  await stack.stop();
  await mcp.close();
  await mcpServer.stop();
  await petStore.stop();
});

it('runs MCP, OpenAPI and Python tools in an agent loop, feeding each result back to the model and charging tool costs to the task', async () => {
  const query = 'Plan a walk for my dog';
  const answered = (id: string) => (_text: string, body: Record<string, unknown>) => JSON.stringify(body.messages).includes(`"tool_call_id":"${id}"`);
  // Rules match in order: the later a step, the more results its request carries.
  stack.model.on(answered('call-py'), { content: 'Walk Rex in the sun for 150 minutes.' });
  stack.model.on(answered('call-pet'), {
    toolCalls: [{ id: 'call-py', name: 'python_executor', arguments: JSON.stringify({ code: 'print(sum(range(1, 5)) * 15)' }) }],
  });
  stack.model.on((text) => text === query, {
    toolCalls: [
      { id: 'call-weather', name: 'weather_forecast', arguments: '{"city":"Oslo"}' },
      { id: 'call-pet', name: 'pets_getPet', arguments: '{"petId":1}' },
    ],
  });

  const { task_id: taskId, workflow_id: workflowId } = await submitTask(stack.orchestrator, { query });
  const status = await waitForFinish(stack.orchestrator, taskId);
  expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'Walk Rex in the sun for 150 minutes.' });

  // Each tool's result went back to the model, paired with its call.
  const toolMessages = stack.model.requests.flatMap((r) =>
    (r.body.messages as Array<{ role: string; tool_call_id?: string; content?: string }>).filter((m) => m.role === 'tool'),
  );
  const resultOf = (id: string) => toolMessages.find((m) => m.tool_call_id === id)?.content;
  expect(resultOf('call-weather')).toBe('Sunny in Oslo for 1 day(s)');
  expect(JSON.parse(resultOf('call-pet')!)).toEqual({ status: 200, body: { id: 1, name: 'Rex', tag: 'dog' } });
  expect(JSON.parse(resultOf('call-py')!)).toEqual({ stdout: '150\n', stderr: '', truncated: false });
  expect(seen.at(-1)).toMatchObject({ url: '/api/pets/1', authorization: 'Bearer pet-token' });

  // The MCP tool's price per use is part of the task's cost.
  expect(status.metrics!.token_usage!.cost_usd).toBeCloseTo(0.25, 6);
  const observed = (await listTaskEvents(stack.pool, workflowId)).filter((e) => e.type === 'TOOL_OBSERVATION').map((e) => [e.payload.tool, e.payload.ok]);
  expect(observed).toEqual(
    expect.arrayContaining([
      ['weather_forecast', true],
      ['pets_getPet', true],
      ['python_executor', true],
    ]),
  );
});

it("caps an AgentService task's Python programs at its config.memory_limit_mb", async () => {
  const query = `memory hungry ${Date.now()}`;
  const bomb = 'blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))';
  stack.model.on((_text, body) => JSON.stringify(body.messages).includes('"tool_call_id":"bomb"'), { content: 'the program ran out of memory' });
  stack.model.on(query, { toolCalls: [{ id: 'bomb', name: 'python_executor', arguments: JSON.stringify({ code: bomb }) }] });
  const response = await unaryCall(stack.client('agent'), 'ExecuteTask', { query, available_tools: ['python_executor'], config: { memory_limit_mb: 300 } });
  expect(response).toMatchObject({ status: 'STATUS_CODE_OK', result: 'the program ran out of memory' });
  const toolMessage = stack.model.requests
    .flatMap((r) => (r.body.messages as Array<{ role: string; tool_call_id?: string; content?: string }>).filter((m) => m.tool_call_id === 'bomb'))
    .at(-1)!;
  expect(JSON.parse(toolMessage.content!)).toEqual({ category: 'execution', message: 'the Python program exceeded its memory limit of 300 MB' });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
