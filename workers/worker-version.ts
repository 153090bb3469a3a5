import { createHash } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { createReadStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NativeConnection, WorkflowBundleOption } from '@temporalio/worker';
import type { BuildPromotion, WorkerVersion, WorkerVersioning } from '../core/capacity-settings';
import { log } from '../core/telemetry/logger';
import { bundleWorkflows } from './create-worker';

// Worker versioning by default: each worker is one build of a Temporal worker deployment, and a
// task's workflow (with its agents) is pinned to the build that started it, so a change of workflow
// code ships as a new build instead of another patched() branch. The build is named by the workflow
// code itself unless WEFT_WORKER_BUILD_ID names it: the same code is the same build, whichever
// worker runs it. New tasks go to the deployment's current version; a worker makes its own build
// current once it polls, as WEFT_WORKER_PROMOTE says.

const buildIdOfDigest = (hex: string) => `wf-${hex.slice(0, 16)}`;

/** The build id of a workflow bundle: its content's hash. */
export const buildIdOf = (code: string) => buildIdOfDigest(createHash('sha256').update(code).digest('hex'));

/** The build id of a bundle file, read in chunks (the worker does not keep a copy of its code). */
async function buildIdOfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return buildIdOfDigest(hash.digest('hex'));
}

/**
 * The workflow code the worker runs, and the build id it names: the prebuilt bundle
 * (WEFT_WORKFLOW_BUNDLE, which the worker then loads from its file), or the workflows bundled now.
 */
export async function workflowBundleOf(bundlePath: string | undefined): Promise<{ bundle: WorkflowBundleOption; codeBuildId: string }> {
  if (bundlePath) return { bundle: { codePath: bundlePath }, codeBuildId: await buildIdOfFile(bundlePath) };
  const code = await bundleWorkflows();
  return { bundle: { code }, codeBuildId: buildIdOf(code) };
}

/** The worker's build: the one configured, or its workflow code's. */
export const workerVersionOf = (versioning: WorkerVersioning, codeBuildId: string): WorkerVersion => ({
  deploymentName: versioning.deploymentName,
  buildId: versioning.buildId ?? codeBuildId,
});

type Workflows = NativeConnection['workflowService'];

/** The deployment's current build, '' when it has none yet (or the deployment is not registered yet). */
async function currentBuildOf(service: Workflows, namespace: string, deploymentName: string): Promise<string> {
  const described = await service.describeWorkerDeployment({ namespace, deploymentName }).catch((err: { code?: number }) => {
    // No worker of the deployment has polled yet.
    if (err.code === GrpcStatus.NOT_FOUND) return undefined;
    throw err;
  });
  return described?.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? '';
}

/**
 * Makes the worker's build the deployment's current version, as `promote` says: once its pollers
 * are registered (Temporal refuses before), retried for up to two minutes or until `stop`. What
 * it did, or why not, is logged; a build left unpromoted still finishes the tasks pinned to it.
 */
export async function promoteBuild(
  connection: NativeConnection,
  namespace: string,
  version: WorkerVersion,
  promote: BuildPromotion,
  stop: AbortSignal,
): Promise<void> {
  if (promote === 'never') return;
  const service = connection.workflowService;
  const deadline = Date.now() + 120_000;
  while (!stop.aborted) {
    try {
      const current = await currentBuildOf(service, namespace, version.deploymentName);
      if (current === version.buildId) return;
      if (current && promote === 'when-unset') {
        log().info(
          { ...version, current },
          `build ${version.buildId} polls beside the current build ${current}: make it current with \`temporal worker deployment set-current-version --deployment-name ${version.deploymentName} --build-id ${version.buildId}\``,
        );
        return;
      }
      await service.setWorkerDeploymentCurrentVersion({ namespace, deploymentName: version.deploymentName, buildId: version.buildId, identity: 'weft-worker' });
      log().info(
        { ...version, previous: current },
        `build ${version.buildId} is the current version of deployment ${version.deploymentName}: new tasks run on it`,
      );
      return;
    } catch (err) {
      if (Date.now() > deadline) {
        log().error({ err, ...version }, `build ${version.buildId} could not be made current: new tasks go to the deployment's current build`);
        return;
      }
      await sleep(500, undefined, { signal: stop }).catch(() => undefined);
    }
  }
}
