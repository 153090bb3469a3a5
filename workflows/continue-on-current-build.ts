import { makeContinueAsNewFunc, type Workflow } from '@temporalio/workflow';

/**
 * Continues the workflow in a fresh history, on the deployment's current build: a task pinned to
 * the build that started it moves to the current one at this boundary, where nothing is replayed
 * (upgrade on continue-as-new, honoured by Temporal servers that have it; on others, and for
 * unversioned workers, the new run stays where the old one ran).
 */
export function continueOnCurrentBuild<F extends Workflow>(...args: Parameters<F>): Promise<never> {
  return makeContinueAsNewFunc<F>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(...args);
}
