import { EventType } from '../../events/event-types';
import { controlChangeRecord, messageReceivedRecord, recordOwnerOf } from './run-records';
import type { TaskMessage } from './model-step';
import { appendWhileTaskRuns, taskEvent } from './task-events';
import type { TaskWriteDeps } from './task-write-deps';

// A person steering a running task: each pause and resume is a record in the task's run log and an
// event in its stream (WORKFLOW_PAUSED, WORKFLOW_RESUMED), one transaction, keyed by its place
// among the task's changes so a retry writes nothing new.

export interface ControlChangeInput {
  /** The task's own run. */
  runId: string;
  workflowId: string;
  sessionId: string;
  kind: 'paused' | 'resumed';
  /** 1 for the task's first pause or resume, 2 for the next, ... */
  sequence: number;
  reason: string;
  by: string;
  atMs: number;
}

export interface MessageReceivedInput {
  runId: string;
  workflowId: string;
  sessionId: string;
  message: TaskMessage;
  atMs: number;
}

export function taskSteering({ store }: TaskWriteDeps) {
  return {
    async recordControlChange(input: ControlChangeInput): Promise<void> {
      const at = new Date(input.atMs);
      const { kind, reason, by } = input;
      await store.appendRunRecord(controlChangeRecord(recordOwnerOf(input), at, input.sequence, { kind, reason, by }), async (tx) => {
        await appendWhileTaskRuns(
          tx,
          taskEvent(
            input.workflowId,
            `control/${input.runId}/${input.sequence}`,
            kind === 'paused' ? EventType.WorkflowPaused : EventType.WorkflowResumed,
            at,
            {
              message: `${kind === 'paused' ? 'paused' : 'resumed'} by ${by}${reason ? `: ${reason}` : ''}`,
              payload: { by, reason },
            },
          ),
        );
      });
    },

    async recordMessageReceived(input: MessageReceivedInput): Promise<void> {
      const at = new Date(input.atMs);
      const { message } = input;
      await store.appendRunRecord(messageReceivedRecord(recordOwnerOf(input), at, message), async (tx) => {
        await appendWhileTaskRuns(
          tx,
          taskEvent(input.workflowId, `message/${input.runId}/${message.id}`, EventType.MessageReceived, at, {
            message: `message from ${message.from}: ${message.text.slice(0, 200)}`,
            payload: { id: message.id, from: message.from },
          }),
        );
      });
    },
  };
}
