import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { temporal as proto } from '@temporalio/proto';
import type { WorkerVersion } from '../../core/capacity-settings';
import { submitTask, waitForFinish } from '../support/grpc';
import { approveTask, pendingApprovalOf, until } from '../support/orchestration';
import { startTestStack, startTestWorker, testTaskInput, type RunningWorker, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { startReadyProcess, stop } from '../support/processes';
import { freePort } from '../setup/free-port';
import { buildIdOf } from '../../workers/worker-version';
import type { taskWorkflow } from '../../workflows/task-workflow';

// A rollout with worker versioning (WEFT_WORKER_DEPLOYMENT and WEFT_WORKER_BUILD_ID): once the new
// build is the deployment's current version, new tasks run on it, while a task the old build
// started (here, one waiting for approval) finishes on the old build, whose code its history holds.

const { VersioningBehavior } = proto.api.enums.v1;
const deploymentName = `weft-test-${randomUUID()}`;
const buildA: WorkerVersion = { deploymentName, buildId: 'build-a' };
const buildB: WorkerVersion = { deploymentName, buildId: 'build-b' };

let stack: TestStack;
let newBuild: RunningWorker | undefined;
beforeAll(async () => {
  stack = await startTestStack({ workerCapacity: { version: buildA } });
});
const processes: Array<Awaited<ReturnType<typeof startReadyProcess>>> = [];
afterAll(async () => {
  for (const child of processes) await stop(child);
  await newBuild?.stop();
  await stack.stop();
});

/** `temporal worker deployment set-current-version`: retried until the build's pollers have registered it. */
async function makeCurrent(version: WorkerVersion): Promise<void> {
  await until(() =>
    stack.temporal.workflowService
      .setWorkerDeploymentCurrentVersion({ namespace: 'default', deploymentName: version.deploymentName, buildId: version.buildId, identity: 'weft-test' })
      .then(
        () => true,
        () => undefined,
      ),
  );
}

/** The builds that completed the workflow's tasks, from its history: each task says which build ran it. */
async function buildsThatRan(workflowId: string): Promise<string[]> {
  const { events } = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  const builds = (events ?? []).flatMap((e) => e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId ?? []);
  return [...new Set(builds)];
}

/** The build a workflow is pinned to, as Temporal records it (the Web UI shows it too). */
async function pinnedBuildOf(workflowId: string): Promise<string | undefined> {
  const { raw } = await stack.temporal.workflow.getHandle(workflowId).describe();
  const versioning = raw.workflowExecutionInfo?.versioningInfo;
  return versioning?.behavior === VersioningBehavior.VERSIONING_BEHAVIOR_PINNED ? (versioning.deploymentVersion?.buildId ?? undefined) : undefined;
}

it('a new build takes new tasks while a task the old build started finishes on the old build', async () => {
  await makeCurrent(buildA);
  const waiting = `wait on build a ${randomUUID()}`;
  stack.model.on(waiting, { content: 'finished where it started' });
  const started = await submitTask(stack.orchestrator, { query: waiting, require_approval: true });
  const approval = await pendingApprovalOf(stack.orchestrator, started.task_id);
  expect(await pinnedBuildOf(started.workflow_id)).toBe('build-a');

  newBuild = await startTestWorker({
    taskQueue: stack.taskQueue,
    pool: stack.pool,
    store: stack.store,
    modelBaseURL: stack.model.baseURL,
    capacity: { version: buildB },
  });
  await makeCurrent(buildB);

  const fresh = `new work for build b ${randomUUID()}`;
  stack.model.on(fresh, { content: 'done on the new build' });
  const submitted = await submitTask(stack.orchestrator, { query: fresh });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'done on the new build' });
  expect(await pinnedBuildOf(submitted.workflow_id)).toBe('build-b');

  await approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: true });
  expect(await waitForFinish(stack.orchestrator, started.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'finished where it started' });
  expect(await pinnedBuildOf(started.workflow_id)).toBe('build-a');
  expect(await buildsThatRan(started.workflow_id)).toEqual(['build-a']);
  expect(await buildsThatRan(submitted.workflow_id)).toEqual(['build-b']);
});

/** A worker process (workers/main.ts) as `make up` starts one, on this stack's database and Temporal. */
async function workerProcess(taskQueue: string, env: Record<string, string>) {
  const metricsPort = await freePort();
  const child = await startReadyProcess(
    'workers/main.ts',
    {
      WEFT_TASK_QUEUE: taskQueue,
      WEFT_LLM_BASE_URL: stack.model.baseURL,
      WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!,
      WEFT_METRICS_PORT: String(metricsPort),
      WEFT_SANDBOX_POOL_SIZE: '0',
      ...env,
    },
    'worker polling task queue',
  );
  processes.push(child);
  return { child, ready: () => fetch(`http://127.0.0.1:${metricsPort}/readyz`).then((res) => res.ok) };
}

const currentBuildOf = async (deploymentName: string) =>
  (await stack.temporal.workflowService.describeWorkerDeployment({ namespace: 'default', deploymentName })).workerDeploymentInfo?.routingConfig
    ?.currentDeploymentVersion?.buildId;

it('runs a worker process versioned by default: its build is named by its workflow code, made current once it polls, and a later build waits to be promoted', async () => {
  const deployment = `weft-default-${randomUUID()}`;
  const taskQueue = `versioned-${randomUUID()}`;
  const first = await workerProcess(taskQueue, { WEFT_WORKER_DEPLOYMENT: deployment });
  const build = buildIdOf(readFileSync(process.env.WEFT_TEST_WORKFLOW_BUNDLE!, 'utf8'));
  // Ready only once new tasks can reach it.
  await until(() => first.ready().then((ok) => ok || undefined));
  expect(await currentBuildOf(deployment)).toBe(build);

  const query = `pinned by default ${randomUUID()}`;
  stack.model.on(query, { content: 'ran on the default build' });
  const input = testTaskInput({ taskId: `versioned-${randomUUID()}`, query });
  const result = await stack.temporal.workflow.execute<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  expect(result).toMatchObject({ status: 'COMPLETED', result: 'ran on the default build' });
  expect(await pinnedBuildOf(input.taskId)).toBe(build);

  // Another build beside it (WEFT_WORKER_PROMOTE=when-unset, the default) leaves the current one current.
  const second = await workerProcess(taskQueue, { WEFT_WORKER_DEPLOYMENT: deployment, WEFT_WORKER_BUILD_ID: 'later-build' });
  await until(() => second.ready().then((ok) => ok || undefined));
  expect(await currentBuildOf(deployment)).toBe(build);
  expect(second.child.stdoutText()).toContain('polls beside the current build');
});

itLeavesEveryTaskVerified(() => stack.everyTask());
