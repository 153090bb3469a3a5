// Runs the bare baseline workflows in their own process, like the Weft worker they are compared with.
import { NativeConnection, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import '../test/setup/quiet-logs';

async function main(): Promise<void> {
  const model = new OpenAI({ baseURL: process.env.WEFT_LLM_BASE_URL!, apiKey: 'bench' });
  const modelCall = async (query: string) => {
    const stream = await model.chat.completions.create({ model: 'bench-model', messages: [{ role: 'user', content: query }], stream: true });
    let answer = '';
    for await (const chunk of stream) answer += chunk.choices[0]?.delta.content ?? '';
    return answer;
  };
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.WEFT_TASK_QUEUE!,
    workflowsPath: require.resolve('./bare-workflows'),
    activities: { noop: async (step: number) => step, modelCall },
    shutdownGraceTime: 1_000,
  });
  console.log('worker process ready');
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
