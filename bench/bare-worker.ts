// Runs the bare baseline workflows in their own process, like the Weft worker they are compared with:
// with the same Node flags and environment (weft-beside-bare.ts), and the same log line per task
// ended, written by the same logger.
import { NativeConnection, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { Pool } from 'pg';
import { log } from '../core/telemetry/logger';

async function main(): Promise<void> {
  const model = new OpenAI({ baseURL: process.env.WEFT_LLM_BASE_URL!, apiKey: 'bench' });
  const modelCall = async (query: string) => {
    const stream = await model.chat.completions.create({ model: 'bench-model', messages: [{ role: 'user', content: query }], stream: true });
    let answer = '';
    for await (const chunk of stream) answer += chunk.choices[0]?.delta.content ?? '';
    return answer;
  };
  // Bare Postgres: pg's own pool, one table, no store.
  const database = new Pool({ connectionString: process.env.DATABASE_URL!, max: 10 });
  await database.query('CREATE TABLE IF NOT EXISTS bare_task_ends (workflow_id text PRIMARY KEY, answer text NOT NULL, finished_at timestamptz NOT NULL)');
  const recordEnd = async (workflowId: string, answer: string) => {
    await database.query('INSERT INTO bare_task_ends VALUES ($1, $2, now()) ON CONFLICT (workflow_id) DO NOTHING', [workflowId, answer]);
    log().info({ workflowId, status: 'COMPLETED' }, 'task ended');
  };
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.WEFT_TASK_QUEUE!,
    workflowsPath: require.resolve('./bare-workflows'),
    activities: { noop: async (step: number) => step, modelCall, recordEnd },
    shutdownGraceTime: 1_000,
  });
  console.log('worker process ready');
  await worker.run();
  await database.end();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
