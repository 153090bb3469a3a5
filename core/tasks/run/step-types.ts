import type { ToolMetadata } from '../../tools/tool';
import type { TaskRef } from './task-ref';

// Types the steps of a task's run share: each names what one step hands another, so that the steps
// import this file rather than each other.

export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A tool the client declares: what the model is told of it. */
export type ClientTool = Pick<ToolMetadata, 'name' | 'description' | 'parameters'>;

/** A task as routing sees it: its caller's roles play no part. */
export interface RoutingInput extends Omit<TaskRef, 'roles'> {
  /** The task's workflow: its stream. */
  workflowId: string;
  /** The task's run; the workflow's first run when absent (histories from before a reset could give the task another). */
  runId?: string;
  query: string;
  atMs: number;
}
