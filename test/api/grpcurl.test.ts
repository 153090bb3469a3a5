import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureGoTool, grpcurl } from '../../infra/go-tools';
import { waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';

// The seed's grpcurl examples, unchanged but for the API key header, against the real API with
// server reflection only (no .proto files).

let stack: TestStack;
let binary: string;
beforeAll(async () => {
  binary = ensureGoTool(grpcurl, () => {});
  stack = await startTestStack();
});
afterAll(() => stack.stop());

// Asynchronously: the API under test runs in this process and must keep answering.
async function call(method: string, body: object, port = stack.api.port): Promise<Array<Record<string, unknown>>> {
  const args = ['-plaintext', '-H', `authorization: Bearer ${stack.apiKey}`, '-d', JSON.stringify(body), `127.0.0.1:${port}`, method];
  const { stdout } = await promisify(execFile)(binary, args);
  // One JSON object per message.
  return stdout
    .trim()
    .split(/\n(?=\{)/)
    .map((text) => JSON.parse(text) as Record<string, unknown>);
}

it('runs the seed examples: SubmitTask, GetTaskStatus, StreamTaskExecution with and without filters and resume', async () => {
  const query = 'Q4の売上データを分析し、視覚化を作成する';
  // The models decide as in the seed's example: COMPLEX at 0.78, three agents (with Weft's tools).
  stack.model.on((text) => text.includes('Classify the task') && text.includes(query), {
    content: JSON.stringify({
      recommended_mode: 'COMPLEX',
      complexity_score: 0.78,
      required_capabilities: [],
      estimated_agents: 3,
      estimated_tokens: 5000,
      estimated_cost_usd: 0.08,
      reasoning: 'load, analyse, chart',
    }),
  });
  const plan = {
    agents: [
      { id: 'data-loader', description: 'Q4の売上データをロードする', tools: ['data_table'], tier: 'SMALL' },
      { id: 'analyst', description: '売上トレンドを分析する', dependencies: ['data-loader'], tier: 'MEDIUM' },
      { id: 'visualizer', description: 'チャートを作成する', dependencies: ['analyst'], tools: ['python_executor'], tier: 'SMALL' },
    ],
  };
  stack.model.on((text) => text.includes('Split the task') && text.includes(query), { content: JSON.stringify(plan) });
  stack.model.on(query, { content: '分析完了。' });
  const [submitted] = await call('shannon.orchestrator.OrchestratorService/SubmitTask', {
    metadata: { user_id: 'user-123', session_id: 'sess-456', token_budget: 10000 },
    query,
    auto_decompose: true,
  });
  // The seed's response shape, decomposition included (grpcurl leaves out empty lists).
  expect(submitted).toEqual({
    workflow_id: expect.any(String),
    task_id: expect.any(String),
    status: 'STATUS_CODE_OK',
    decomposition: {
      mode: 'EXECUTION_MODE_COMPLEX',
      complexity_score: 0.78,
      agent_tasks: [
        { agent_id: 'data-loader', description: 'Q4の売上データをロードする', required_tools: ['data_table'], model_tier: 'MODEL_TIER_SMALL' },
        { agent_id: 'analyst', description: '売上トレンドを分析する', dependencies: ['data-loader'], model_tier: 'MODEL_TIER_MEDIUM' },
        {
          agent_id: 'visualizer',
          description: 'チャートを作成する',
          dependencies: ['analyst'],
          required_tools: ['python_executor'],
          model_tier: 'MODEL_TIER_SMALL',
        },
      ],
    },
    message: 'task submitted',
  });
  const taskId = submitted!.task_id as string;
  const workflowId = submitted!.workflow_id as string;
  await waitForFinish(stack.orchestrator, taskId);

  const [status] = await call('shannon.orchestrator.OrchestratorService/GetTaskStatus', { task_id: taskId, include_details: true });
  expect(status).toMatchObject({ task_id: taskId, status: 'TASK_STATUS_COMPLETED', result: '分析完了。' });

  const all = await call('shannon.orchestrator.StreamingService/StreamTaskExecution', { workflow_id: workflowId });
  expect(all[0]).toMatchObject({ type: 'WORKFLOW_STARTED', seq: '1' });
  expect(all.at(-1)).toMatchObject({ type: 'WORKFLOW_COMPLETED' });

  const lifecycle = await call('shannon.orchestrator.StreamingService/StreamTaskExecution', {
    workflow_id: workflowId,
    types: ['WORKFLOW_STARTED', 'WORKFLOW_COMPLETED', 'ERROR_OCCURRED'],
  });
  expect(lifecycle.map((m) => m.type)).toEqual(['WORKFLOW_STARTED', 'WORKFLOW_COMPLETED']);

  const resumed = await call('shannon.orchestrator.StreamingService/StreamTaskExecution', { workflow_id: workflowId, last_stream_id: all[0]!.stream_id });
  expect(resumed.map((m) => m.seq)).toEqual(all.slice(1).map((m) => m.seq));
});

it('runs the seed examples on the other ports: AgentService DiscoverTools (50051) and LLMService AnalyzeComplexity (8000)', async () => {
  const [discovered] = await call(
    'shannon.agent.AgentService/DiscoverTools',
    { query: 'data analysis', categories: ['data'], exclude_dangerous: true, max_results: 10 },
    stack.api.agentPort,
  );
  // grpcurl prints JSON without default values: is_dangerous false is absent.
  expect(discovered).toMatchObject({ tools: [{ id: 'data_table', category: 'data' }] });
  const [math] = await call('shannon.agent.AgentService/DiscoverTools', { query: 'arithmetic', exclude_dangerous: true, max_results: 10 }, stack.api.agentPort);
  expect(math).toMatchObject({ tools: [{ id: 'calculator', category: 'math' }] });

  stack.model.reset(); // the first test scripted a plain answer for the same question
  // The seed's example response, as the small model's verdict.
  const verdict = {
    recommended_mode: 'COMPLEX',
    complexity_score: 0.78,
    required_capabilities: ['data_loading', 'analysis', 'visualization'],
    estimated_agents: 3,
    estimated_tokens: 5000,
    estimated_cost_usd: 0.08,
    reasoning: 'タスクにはデータの読み込み、統計分析、視覚化生成が必要です',
  };
  stack.model.on((text) => text.includes('Q4の売上データを分析し、視覚化を作成する'), { content: JSON.stringify(verdict) });
  const [analysis] = await call(
    'shannon.llm.LLMService/AnalyzeComplexity',
    { query: 'Q4の売上データを分析し、視覚化を作成する', available_tools: ['csv_loader', 'pandas', 'matplotlib'] },
    stack.api.llmPort,
  );
  expect(analysis).toEqual({ ...verdict, recommended_mode: 'EXECUTION_MODE_COMPLEX' });
});

it('checks health with grpcurl by reflection alone, on every port', async () => {
  for (const port of [stack.api.port, stack.api.agentPort, stack.api.llmPort]) {
    expect(await call('grpc.health.v1.Health/Check', {}, port)).toEqual([{ status: 'SERVING' }]);
  }
});
