import type { FinishTaskInput } from '../core/tasks/run/task-end';
import type { AgentLoopResult } from './agent-loop';

/** How a task ends, before it is recorded. */
export type TaskOutcome = Pick<FinishTaskInput, 'status' | 'result' | 'errorMessage' | 'code' | 'cancellationReason'> & { model: string };

export const completed = (result: string, model: string): TaskOutcome => ({ status: 'COMPLETED', result, errorMessage: '', model });
export const failed = (errorMessage: string, model = ''): TaskOutcome => ({ status: 'FAILED', result: '', errorMessage, model });

/** What a completed task's status says of an answer the model's token limit still cut off after it was continued. */
export const truncatedAnswer = "the answer was cut off at the model's token limit (finish_reason length), even after it was continued";

/** What went wrong, in a person's terms: an activity's failure says it in its cause. */
export function failureMessageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error ? err.cause.message : err.message;
}

/** What a finished agent loop means for the task. */
export function loopOutcome(loop: Exclude<AgentLoopResult, { kind: 'continue' }>): TaskOutcome {
  const model = loop.state.model;
  switch (loop.kind) {
    case 'answered':
      // Kept as far as it got, and said to be cut off: never passed off as a whole answer.
      return loop.truncated ? { ...completed(loop.text, model), errorMessage: truncatedAnswer } : completed(loop.text, model);
    case 'over_budget':
      return { ...failed(loop.reason, model), code: 'BUDGET_EXCEEDED' };
    case 'session_ended':
      return { status: 'CANCELLED', result: '', errorMessage: 'session ended', cancellationReason: 'session_ended', model };
    case 'rejected':
      return { status: 'CANCELLED', result: '', errorMessage: `rejected: ${loop.feedback}`, cancellationReason: 'approval_rejected', model };
    case 'approval_timeout':
      return { status: 'TIMEOUT', result: '', errorMessage: 'approval timed out', cancellationReason: 'approval_timeout', model };
    case 'client_timeout':
      return {
        status: 'TIMEOUT',
        result: '',
        errorMessage: `the client did not send the results of ${loop.tools.join(', ')} in time`,
        cancellationReason: 'client_tool_timeout',
        model,
      };
  }
}
