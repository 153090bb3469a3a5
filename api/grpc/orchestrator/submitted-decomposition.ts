import { EventType } from '../../../core/events/event-types';
import type { Plan } from '../../../core/orchestration/plan';
import type { TaskDecomposition } from '../../../protos/generated/shannon/orchestrator/TaskDecomposition';
import { finalEventTypes, tailTaskEvents, type EventTailDeps } from '../../tasks/task-event-tail';

// SubmitTask answers with the task's decomposition, as the seed's example shows: a manual plan at
// once; with auto_decompose, once the workflow has routed the task (and planned a COMPLEX one),
// read from the task's event log, or, past a deadline, the mode still UNSPECIFIED.

type Mode = 'SIMPLE' | 'STANDARD' | 'COMPLEX';

/** A decomposition in the proto's shape. */
export function decompositionOf(mode: Mode | undefined, score: number, plan?: Plan): TaskDecomposition {
  return {
    mode: mode ? `EXECUTION_MODE_${mode}` : 'EXECUTION_MODE_UNSPECIFIED',
    complexity_score: score,
    agent_tasks: (plan?.agents ?? []).map((a) => ({
      agent_id: a.id,
      description: a.description,
      dependencies: a.dependencies,
      required_tools: a.tools,
      model_tier: `MODEL_TIER_${a.tier}`,
    })),
  };
}

/**
 * Follows the task's events until routing has decided its mode (and, for COMPLEX, the plan is
 * recorded), the task ended first, or `waitMs` passed; what it knows by then.
 */
export async function routedDecomposition(deps: EventTailDeps, workflowId: string, waitMs: number): Promise<TaskDecomposition> {
  let mode: Mode | undefined;
  let score = 0;
  for await (const event of tailTaskEvents(deps, workflowId, 0, AbortSignal.timeout(waitMs))) {
    // Routing's announcement carries its verdict.
    if (event.type === EventType.StatusUpdate && typeof event.payload.recommended_mode === 'string') {
      mode = event.payload.recommended_mode as Mode;
      score = Number(event.payload.complexity_score ?? 0);
      if (mode !== 'COMPLEX') break;
    }
    if (event.type === EventType.DecompositionCompleted) return decompositionOf('COMPLEX', score, event.payload.plan as Plan);
    if (finalEventTypes.has(event.type)) break;
  }
  return decompositionOf(mode, score);
}
