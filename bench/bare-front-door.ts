// The least a front door in front of Temporal does, as its own process: a gRPC server (grpc-js, as
// Weft's API) whose SubmitTask makes the same workflow start Weft's makes (the same input, search
// attributes, memo, summary and priority, through the same launchTaskWorkflow) and nothing else:
// no authentication, validation, fingerprint, telemetry or log line. bench/api-bench.ts runs it
// beside Weft's API, so SubmitTask's latency can be set beside a hop's alone.
// Env: TEMPORAL_ADDRESS, BENCH_BARE_PORT, BENCH_TASK_QUEUE, BENCH_TASK_INPUT (a task's workflow
// input as JSON, whose taskId and query each call replaces), BENCH_REQUEST_FINGERPRINT.
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { launchTaskWorkflow } from '../api/tasks/task-start';
import { taskWorkflowIdOf } from '../core/tasks/run/task-ref';
import { loadApiProtos } from '../protos/load';
import type { SubmitTaskRequest__Output } from '../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { TaskWorkflowInput } from '../workflows/task-workflow-types';

async function main(): Promise<void> {
  const template = JSON.parse(process.env.BENCH_TASK_INPUT!) as TaskWorkflowInput;
  const taskQueue = process.env.BENCH_TASK_QUEUE!;
  const fingerprint = process.env.BENCH_REQUEST_FINGERPRINT!;
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const server = new grpc.Server();
  server.addService(loadApiProtos().shannon.orchestrator.OrchestratorService.service, {
    SubmitTask: (call: grpc.ServerUnaryCall<SubmitTaskRequest__Output, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const taskId = `task-${randomUUID()}`;
      launchTaskWorkflow(temporal, taskQueue, { ...template, taskId, query: call.request.query }, fingerprint).then(
        () => callback(null, { workflow_id: taskWorkflowIdOf(taskId), task_id: taskId, status: 'STATUS_CODE_OK', message: 'task submitted' }),
        (err: unknown) => callback({ code: grpc.status.INTERNAL, details: String(err) }),
      );
    },
  });
  await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${process.env.BENCH_BARE_PORT}`, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
  );
  console.log('bare front door serving');
  process.once('SIGTERM', () => server.tryShutdown(() => void connection.close().then(() => process.exit(0))));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
