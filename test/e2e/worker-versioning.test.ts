import { randomUUID } from 'node:crypto';
import { temporal as proto } from '@temporalio/proto';
import type { WorkerVersion } from '../../core/capacity-settings';
import { submitTask, waitForFinish } from '../support/grpc';
import { approveTask, pendingApprovalOf, until } from '../support/orchestration';
import { startTestStack, startTestWorker, type RunningWorker, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

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
afterAll(async () => {
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

itLeavesEveryTaskVerified(() => stack.everyTask());
