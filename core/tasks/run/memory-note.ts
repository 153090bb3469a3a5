import { askOnce } from './recorded-reply';
import type { ModelReplyPayload } from './run-records';
import { TaskAgent } from './task-ref';
import type { StepContext, TaskWriteDeps } from './task-write-deps';

// The model call behind a completed task's memory note (workflows/remember-result.ts): asked once
// on the small tier, recorded in the task run's log as 'memory/note', its usage the task's agent
// "memory"'s.

export interface MemoryNoteInput {
  taskId: string;
  sessionId: string;
  /** The task's store run. */
  runId: string;
  prompt: string;
  atMs: number;
}

export function memoryNotes(deps: TaskWriteDeps) {
  return {
    draftMemoryNote: (input: MemoryNoteInput, step: StepContext): Promise<ModelReplyPayload> =>
      askOnce(
        deps,
        {
          taskId: input.taskId,
          sessionId: input.sessionId,
          runId: input.runId,
          agentId: TaskAgent.Memory,
          name: 'memory/note',
          prompt: input.prompt,
          tier: 'SMALL',
          atMs: input.atMs,
        },
        step,
      ),
  };
}
