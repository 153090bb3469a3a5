import { agentRuns } from './agent-runs';
import { approvalChanges } from './approval-changes';
import { memoryNotes } from './memory-note';
import { modelSteps } from './model-step';
import { taskRouting } from './routing';
import { taskLifecycle } from './task-lifecycle';
import { taskSteering } from './task-steering';
import type { TaskWriteDeps } from './task-write-deps';
import { toolSteps } from './tool-step';
import { clientToolSteps } from './client-tools';

// Every write of one task, in one place: its start, routing decision and plan, model steps, tool
// results, approval changes, agent runs, memory note and finish. Each is one store transaction that writes the
// lifecycle change with its record, its event and its usage; keys come from run-records.ts and
// timestamps from the caller (the workflow), so a retry proposes exactly the same write.

export function createTaskWrites(deps: TaskWriteDeps) {
  return {
    ...taskLifecycle(deps),
    ...taskRouting(deps),
    ...modelSteps(deps),
    ...toolSteps(deps),
    ...clientToolSteps(deps),
    ...approvalChanges(deps),
    ...agentRuns(deps),
    ...taskSteering(deps),
    ...memoryNotes(deps),

    /** Validates edited tool arguments (JSON text) against the tool's schema, like the original call. */
    checkToolArguments(input: { tool: string; argumentsText: string }): { ok: true; arguments: Record<string, unknown> } | { ok: false; error: string } {
      let parsed: unknown;
      try {
        parsed = JSON.parse(input.argumentsText);
      } catch {
        return { ok: false, error: 'modified action is not valid JSON' };
      }
      const invalid = deps.tools.checkArguments(input.tool, parsed);
      return invalid ? { ok: false, error: invalid } : { ok: true, arguments: parsed as Record<string, unknown> };
    },
  };
}

export type TaskWrites = ReturnType<typeof createTaskWrites>;
export type { TaskWriteDeps, StepContext } from './task-write-deps';
