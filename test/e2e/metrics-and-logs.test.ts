import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createApiKey } from '../../core/auth/api-keys';
import { createPool } from '../../core/db/database';
import { createOrchestratorClient, unaryCall } from '../../protos/clients';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { freePort } from '../setup/free-port';
import { waitForFinish } from '../support/grpc';
import { until } from '../support/orchestration';
import { startReadyProcess, stop } from '../support/processes';

// The API and the worker as deployed (their own processes): after a task, each /metrics has its
// series (the API's requests and state, the worker's tasks, models, tools and the Temporal SDK's,
// and both processes' Node metrics), and their logs are JSON lines that name the task and tenant.

const pool = createPool(process.env.DATABASE_URL!);
const model = new ScriptedModelServer();
const processes: ChildProcess[] = [];
let api: Awaited<ReturnType<typeof startReadyProcess>>;
let worker: Awaited<ReturnType<typeof startReadyProcess>>;
const ports = { grpc: 0, agent: 0, llm: 0, http: 0, apiMetrics: 0, workerMetrics: 0 };

beforeAll(async () => {
  await model.start();
  for (const name of Object.keys(ports) as Array<keyof typeof ports>) ports[name] = await freePort();
  const env = {
    WEFT_TASK_QUEUE: `telemetry-${randomUUID()}`,
    WEFT_LLM_BASE_URL: model.baseURL,
    WEFT_LLM_MODEL: 'telemetry-model',
    WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!,
    WEFT_GRPC_PORT: String(ports.grpc),
    WEFT_AGENT_GRPC_PORT: String(ports.agent),
    WEFT_LLM_GRPC_PORT: String(ports.llm),
    WEFT_HTTP_PORT: String(ports.http),
    WEFT_API_METRICS_PORT: String(ports.apiMetrics),
    WEFT_METRICS_PORT: String(ports.workerMetrics),
    WEFT_SANDBOX_POOL_SIZE: '0',
    WEFT_LOG_LEVEL: 'debug',
  };
  worker = await startReadyProcess('workers/main.ts', env, 'worker polling task queue');
  processes.push(worker);
  api = await startReadyProcess('api/main.ts', env, 'api serving gRPC');
  processes.push(api);
}, 120_000);

afterAll(async () => {
  for (const child of processes) await stop(child);
  await model.stop();
  await pool.end();
});

const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

it('serves the task, model, tool and SDK series on the worker and the request and state series on the API, and logs JSON lines naming the task', async () => {
  const tenantId = `tenant-${randomUUID()}`;
  const client = createOrchestratorClient(`127.0.0.1:${ports.grpc}`, { apiKey: await createApiKey(pool, { tenantId, userId: 'mia', roles: [] }) });
  model.on('measure me', { toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"6*7"}' }] }, { content: 'measured' });
  const submitted = await unaryCall(client, 'SubmitTask', { query: 'measure me' });
  expect(await waitForFinish(client, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });
  client.close();

  const workerMetrics = await scrape(ports.workerMetrics);
  expect(workerMetrics).toContain('weft_tasks_ended_total{status="COMPLETED",mode="STANDARD"} 1');
  expect(workerMetrics).toMatch(/weft_task_duration_seconds_count\{mode="STANDARD"\} 1/);
  expect(workerMetrics).toMatch(/weft_model_calls_total\{provider="\w+",model="telemetry-model",outcome="success"\} 2/);
  expect(workerMetrics).toMatch(/weft_model_tokens_total\{provider="\w+",model="telemetry-model",kind="prompt"\} [1-9]/);
  expect(workerMetrics).toMatch(/weft_model_call_duration_seconds_count\{provider="\w+",model="telemetry-model"\} 2/);
  expect(workerMetrics).toContain('weft_tool_executions_total{tool_name="calculator",status="success"} 1');
  expect(workerMetrics).toMatch(/^temporal_\w+/m); // the SDK's own
  // The store says COMPLETED in the workflow's last activity; the workflow itself completes (and
  // the SDK counts it) a moment later.
  expect(await until(async () => (/^temporal_workflow_completed_total\{.*\} 1/m.test(await scrape(ports.workerMetrics)) ? true : undefined))).toBe(true);
  expect(workerMetrics).toMatch(/^nodejs_heap_size_used_bytes \d+/m);

  const apiMetrics = await scrape(ports.apiMetrics);
  expect(apiMetrics).toContain('weft_api_requests_total{method="shannon.orchestrator.OrchestratorService/SubmitTask",code="OK"} 1');
  expect(apiMetrics).toMatch(/weft_api_request_duration_seconds_count\{method="shannon.orchestrator.OrchestratorService\/GetTaskStatus"\} [1-9]/);
  expect(apiMetrics).toMatch(/^weft_stream_clients 0/m);
  expect(apiMetrics).toMatch(/^weft_approvals_pending \d+/m);
  expect(apiMetrics).toContain('# TYPE weft_tasks_unfinished gauge');
  expect(apiMetrics).toMatch(/^process_resident_memory_bytes \d+/m);
  // No tenant is named in any label.
  expect(workerMetrics + apiMetrics).not.toContain(tenantId);
  // Every series the Grafana dashboard charts is served by one of the two.
  const dashboard = JSON.parse(readFileSync(path.join(__dirname, '../../infra/grafana-dashboard.json'), 'utf8')) as {
    panels: Array<{ targets: Array<{ expr: string }> }>;
  };
  const charted = new Set(
    dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => target.expr.match(/\b(weft|temporal|process|nodejs)_\w+/g) ?? [])),
  );
  const served = (series: string) => new RegExp(`^# TYPE ${series.replace(/_(bucket|count|sum)$/, '')} `, 'm').test(workerMetrics + apiMetrics);
  expect([...charted].filter((series) => !served(series))).toEqual([]);

  // The probes a load balancer or Kubernetes asks, on the same ports.
  for (const port of [ports.apiMetrics, ports.workerMetrics]) {
    const [health, ready] = await Promise.all(['healthz', 'readyz'].map((probe) => fetch(`http://127.0.0.1:${port}/${probe}`)));
    expect([health!.status, await health!.text()]).toEqual([200, 'ok\n']);
    expect([ready!.status, await ready!.text()]).toEqual([200, 'ready\n']);
  }

  const apiLog = jsonLines(api.stdoutText());
  expect(apiLog).toContainEqual(
    expect.objectContaining({
      name: 'weft-api',
      msg: 'request',
      method: 'shannon.orchestrator.OrchestratorService/SubmitTask',
      code: 'OK',
      taskId: submitted.task_id,
      tenantId,
      userId: 'mia',
    }),
  );
  const workerLog = jsonLines(worker.stdoutText());
  expect(workerLog).toContainEqual(
    expect.objectContaining({
      name: 'weft-worker',
      msg: 'task ended',
      taskId: submitted.task_id,
      workflowId: submitted.workflow_id,
      tenantId,
      status: 'COMPLETED',
      mode: 'STANDARD',
    }),
  );
  // The SDK's own lines go through the same logger, with the workflow they are about.
  expect(workerLog).toContainEqual(expect.objectContaining({ source: 'temporal-sdk', workflowId: submitted.workflow_id }));
}, 120_000);
