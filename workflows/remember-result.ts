import { log } from '@temporalio/workflow';
import { memoryDecisionOf, memoryPrompt, minRememberedResultLength } from './memory-note';
import { TaskAgent, taskRefOf } from '../core/tasks/run/task-ref';
import { modelActivities, toolActivities } from './activity-stubs';
import type { TaskView } from './messages';
import { failureMessageOf, type TaskOutcome } from './task-outcomes';
import { taskRunFieldsOf, type TaskScope } from './task-scope';
import type { TaskWorkflowInput } from './task-workflow-types';

const { draftMemoryNote } = modelActivities;
const { runToolCall } = toolActivities;

interface RememberingTask {
  input: TaskWorkflowInput;
  task: TaskScope;
  view: TaskView;
}

/** Whether the task's outcome leaves a note: an eval's task leaves nothing in its user's memory (it re-runs recorded work, it is not new work). */
export const leavesMemoryNote = ({ input }: Pick<RememberingTask, 'input'>, outcome: TaskOutcome) =>
  outcome.status === 'COMPLETED' && input.settings.rememberResults && !input.eval && outcome.result.length >= minRememberedResultLength;

/**
 * With WEFT_USER_MEMORY on, a completed task's long answer leaves a note in its user's memory
 * (leavesMemoryNote): a small-tier model call says what is worth keeping, and memory_write keeps
 * it, both recorded as the task's agent "memory". Best effort: the task completes whatever happens
 * here, and the log says why nothing was kept.
 */
export async function rememberResult({ task, view }: RememberingTask, outcome: TaskOutcome): Promise<void> {
  const run = { ...taskRunFieldsOf(task), agentId: TaskAgent.Memory };
  try {
    const note = await draftMemoryNote.executeWithOptions({ summary: 'memory: what this task leaves its user' }, [
      {
        taskId: task.taskId,
        runId: run.runId,
        sessionId: task.sessionId,
        prompt: memoryPrompt(task.query, outcome.result),
        atMs: Date.now(),
      },
    ]);
    view.tokens += note.usage.totalTokens;
    const decision = memoryDecisionOf(note.text);
    if (decision.kind === 'skip') return log.info('nothing remembered', { reason: decision.reason });
    const call = { id: 'weft-memory-note', name: 'memory_write', arguments: { path: decision.path, content: decision.content } };
    const written = await runToolCall.executeWithOptions({ summary: `memory: ${decision.path}` }, [{ ...taskRefOf(task), ...run, call, atMs: Date.now() }]);
    if (!written.ok) log.warn('the memory note was not written', { path: decision.path, error: written.error.message });
  } catch (err) {
    log.warn("remembering the task's answer failed; the task completes without it", { error: failureMessageOf(err) });
  }
}
