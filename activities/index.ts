import { createAgentLifecycleActivities } from './agent-lifecycle';
import { createApprovalActivities } from './approvals';
import type { ActivityDeps } from './deps';
import { createModelStepActivities } from './model-step';
import { createRoutingActivities } from './routing';
import { createTaskLifecycleActivities } from './task-lifecycle';
import { createToolCallActivities } from './tool-call';

export type { ActivityDeps } from './deps';

/** Every activity the worker registers, bound to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createTaskLifecycleActivities(deps),
    ...createRoutingActivities(deps),
    ...createApprovalActivities(deps),
    ...createAgentLifecycleActivities(deps),
    ...createModelStepActivities(deps),
    ...createToolCallActivities(deps),
  };
}

export type WeftActivities = ReturnType<typeof createActivities>;
