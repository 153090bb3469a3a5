import { defaultPayloadConverter } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { TaskWorkflowInput } from '../workflows/task-workflow-types';

/** The input the task's current run was started with, as its history's first event holds it. */
export async function startInputOf(temporal: Client, workflowId: string): Promise<TaskWorkflowInput> {
  const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!payload) throw new Error(`the history of ${workflowId} does not start with the task's input`);
  return defaultPayloadConverter.fromPayload<TaskWorkflowInput>(payload);
}
