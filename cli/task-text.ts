import type { GetTaskStatusResponse__Output } from '../protos/generated/shannon/orchestrator/GetTaskStatusResponse';
import { oneLine } from '../workflows/ui-metadata';
import type { TaskSummary__Output } from '../protos/generated/shannon/orchestrator/TaskSummary';

// How tasks read as text. One token count everywhere: the API's, every model call the task made
// (routing, planning, agents and synthesis), as the store recorded it.

const shortStatus = (status: string) => status.replace('TASK_STATUS_', '');

export function statusText(status: GetTaskStatusResponse__Output): string[] {
  const usage = status.metrics?.token_usage;
  const lines = [`task      ${status.task_id}`, `status    ${shortStatus(status.status)}  (progress ${Math.round(status.progress * 100)}%)`];
  for (const agent of status.agent_statuses) {
    lines.push(
      `agent     ${agent.agent_id}: ${shortStatus(agent.status)}${agent.token_usage?.total_tokens ? `, ${agent.token_usage.total_tokens} tokens` : ''}`,
    );
  }
  if (status.result) lines.push(`result    ${status.result}`);
  if (status.error_message) lines.push(`error     ${status.error_message}`);
  if (usage && usage.total_tokens > 0) {
    lines.push(
      `tokens    ${usage.total_tokens} (prompt ${usage.prompt_tokens}, completion ${usage.completion_tokens}), $${usage.cost_usd.toFixed(6)}  model ${usage.model}`,
    );
  }
  return lines;
}

const timeText = (at: { seconds: string | number } | null | undefined) =>
  at ? new Date(Number(at.seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ') : '-';

export function taskRowsText(tasks: TaskSummary__Output[], total: number): string[] {
  const rows = tasks.map((task) =>
    [
      task.task_id,
      shortStatus(task.status).padEnd(9),
      task.mode.replace('EXECUTION_MODE_', '').padEnd(8),
      timeText(task.created_at),
      String(task.total_token_usage?.total_tokens ?? 0).padStart(7),
      oneLine(task.query, 60),
    ].join('  '),
  );
  return [...rows, `${tasks.length} of ${total} tasks`];
}
