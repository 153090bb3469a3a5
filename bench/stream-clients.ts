// Child process of bench/api-bench.ts: opens BENCH_STREAMS StreamTaskExecution streams over
// BENCH_CHANNELS connections, prints "streams ready" once the API accepted all of them, and on
// SIGTERM prints one JSON line with every delivery latency (receipt minus the append time the
// event's message carries). Its own process, so that receiving never waits behind the appends.
import { createServiceClient } from '../protos/clients';
import type { TaskUpdate__Output } from '../protos/generated/shannon/orchestrator/TaskUpdate';

const address = process.env.BENCH_API_ADDRESS!;
const apiKey = process.env.BENCH_API_KEY!;
const workflowIds = process.env.BENCH_WORKFLOW_IDS!.split(',');
const streams = Number(process.env.BENCH_STREAMS);
const channels = Number(process.env.BENCH_CHANNELS);

const clients = Array.from({ length: channels }, () => createServiceClient('streaming', address, { apiKey }));
const latencies: number[] = [];
let ready = 0;
for (let i = 0; i < streams; i++) {
  const call = clients[i % channels]!.StreamTaskExecution({ workflow_id: workflowIds[i % workflowIds.length]! });
  call.on('metadata', () => {
    ready += 1;
    if (ready === streams) console.log('streams ready');
  });
  call.on('data', (update: TaskUpdate__Output) => {
    const sentAt = Number(update.message);
    if (sentAt) latencies.push(Date.now() - sentAt);
  });
  call.on('error', () => undefined); // cancelled when the process ends
}

process.once('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify(latencies)}\n`, () => process.exit(0));
});
