import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { createApiKey } from '../../core/auth/api-keys';
import { createPool } from '../../core/db/database';
import { createRuntimeStore } from '../../core/store';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { startApiProcess, type ApiProcess } from '../support/api-process';
import { startReadyProcess, stop } from '../support/processes';
import { until } from '../support/orchestration';
import { itLeavesEveryTaskVerified } from '../support/verification';

// A background response outlives the API process its client talked to: the process is SIGKILLed
// in the middle of the stream, and the client picks the stream up on another API process after the
// last event it saw, with nothing missing and nothing repeated, as `make cluster` runs two APIs.

const pool = createPool(process.env.DATABASE_URL!);
// Paced, so the answer is still streaming when the API dies.
const model = new ScriptedModelServer({ pace: { firstTokenMs: 0, tokensPerSecond: 40 } });
const taskQueue = `responses-failover-${randomUUID()}`;
const processes: ApiProcess[] = [];
const apis: Array<{ proc: ApiProcess; openai: OpenAI }> = [];
let tenantId: string;
let temporalConnection: Connection | undefined;

const env = () => ({
  WEFT_TASK_QUEUE: taskQueue,
  WEFT_LLM_BASE_URL: model.baseURL,
  WEFT_LLM_MODEL: 'failover-model',
  WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!,
  WEFT_METRICS_PORT: '0',
  WEFT_SANDBOX_POOL_SIZE: '0',
});

beforeAll(async () => {
  await model.start();
  tenantId = `tenant-${randomUUID()}`;
  const apiKey = await createApiKey(pool, { tenantId, userId: 'olga', roles: [] });
  processes.push(await startReadyProcess('workers/main.ts', env(), 'worker polling task queue'));
  for (let i = 0; i < 2; i++) {
    const api = await startApiProcess(env());
    processes.push(api.proc);
    apis.push({ proc: api.proc, openai: new OpenAI({ baseURL: `http://127.0.0.1:${api.httpPort}/v1`, apiKey, maxRetries: 0 }) });
  }
}, 120_000);

afterAll(async () => {
  for (const proc of processes) await stop(proc);
  await model.stop();
  await temporalConnection?.close();
  await pool.end();
});

it('resumes on another API process the stream of a response whose API was SIGKILLed mid-stream', async () => {
  const answer = 'Every word of this answer reaches the client once, though the process that began to send it dies. '.repeat(3);
  model.on('Outlive your API', { content: answer });
  const seen: ResponseStreamEvent[] = [];
  const first = apis[0]!;
  const stream = await first.openai.responses.create({ model: 'weft-chat', input: 'Outlive your API', background: true, stream: true });
  const reading = (async () => {
    for await (const event of stream) seen.push(event);
  })().catch((err: unknown) => err);
  await until(() => seen.filter((e) => e.type === 'response.output_text.delta').length >= 5 || undefined);
  await stop(first.proc, 'SIGKILL');
  expect(await reading).toMatchObject({ message: expect.stringMatching(/terminated|socket|reset/i) }); // the client saw its connection die
  const id = (seen[0] as Extract<ResponseStreamEvent, { type: 'response.created' }>).response.id;
  expect(seen.some((e) => e.type === 'response.completed')).toBe(false);

  const rest: ResponseStreamEvent[] = [];
  for await (const event of await apis[1]!.openai.responses.retrieve(id, { stream: true, starting_after: seen.at(-1)!.sequence_number })) rest.push(event);
  const joined = [...seen, ...rest];
  expect(joined.map((e) => e.sequence_number)).toEqual(joined.map((_, i) => i));
  expect(joined.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('')).toBe(answer);
  expect(joined.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
  expect(await apis[1]!.openai.responses.retrieve(id)).toMatchObject({ status: 'completed', output_text: answer });
  // The task was not started again: the model was asked once.
  expect(model.requests.filter((r) => JSON.stringify(r.body.messages).includes('Outlive your API'))).toHaveLength(1);
}, 120_000);

itLeavesEveryTaskVerified(async () => {
  temporalConnection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const { rows } = await pool.query<{ task_id: string }>('SELECT task_id FROM tasks WHERE tenant_id = $1', [tenantId]);
  return { deps: { pool, store: createRuntimeStore(pool), temporal: new Client({ connection: temporalConnection }) }, taskIds: rows.map((row) => row.task_id) };
});
