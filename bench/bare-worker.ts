// Runs the bare baseline workflow in its own process, like the Weft worker it is compared with.
import { NativeConnection, Worker } from '@temporalio/worker';
import '../test/setup/quiet-logs';

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.WEFT_TASK_QUEUE!,
    workflowsPath: require.resolve('./bare-workflows'),
    activities: { noop: async (step: number) => step },
    shutdownGraceTime: 1_000,
  });
  console.log('worker process ready');
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
