import type { Queryable } from '../db/transaction';
import type { RuntimeStore } from '../store';
import { decodeTranscriptRecord, readRunLog, textOf } from '../transcript';
import { runsOfTask } from './eval-tasks';

// Where an eval's run went another way than the recorded one: each agent's model steps side by side
// (what each step asked for: its tool calls, or its answer), and the steps that differ.

/** What one model step did, as a line: its tool calls with their arguments, or its text. */
async function stepsOfRun(store: RuntimeStore, runId: string): Promise<string[]> {
  const replies = (await readRunLog(store, runId))
    .map((record) => ({ record, step: /\/step-(\d+)\/reply$/.exec(record.key)?.[1] }))
    .filter((entry): entry is typeof entry & { step: string } => entry.step !== undefined)
    .sort((a, b) => Number(a.step) - Number(b.step));
  return replies.map(({ record }) => {
    const message = decodeTranscriptRecord(record).messages.at(-1)!;
    const calls = message.parts.filter((part) => part.kind === 'tool_use').map((part) => `${part.name}(${JSON.stringify(part.input)})`);
    return calls.length > 0 ? `calls ${calls.join(', ')}` : `answers ${JSON.stringify(textOf(message).slice(0, 80))}`;
  });
}

/** Each agent's steps ('' is the task's own agent). */
async function stepsOfTask(db: Queryable, store: RuntimeStore, taskId: string): Promise<Map<string, string[]>> {
  const runs = await runsOfTask(db, taskId);
  return new Map(await Promise.all(runs.map(async (run): Promise<[string, string[]]> => [run.agentId, await stepsOfRun(store, run.runId)])));
}

/** The steps where the candidate's run differs from the recorded one, each said plainly. */
export async function divergedSteps(db: Queryable, store: RuntimeStore, recordedTaskId: string, candidateTaskId: string): Promise<string[]> {
  const [recorded, candidate] = await Promise.all([stepsOfTask(db, store, recordedTaskId), stepsOfTask(db, store, candidateTaskId)]);
  const agents = [...new Set([...recorded.keys(), ...candidate.keys()])].sort();
  return agents.flatMap((agent) => {
    const before = recorded.get(agent) ?? [];
    const after = candidate.get(agent) ?? [];
    const who = agent ? `agent ${agent} ` : '';
    return Array.from({ length: Math.max(before.length, after.length) }, (_, i) => i)
      .filter((i) => before[i] !== after[i])
      .map((i) => `${who}step ${i + 1}: recorded ${before[i] ?? 'no step'}; candidate ${after[i] ?? 'no step'}`);
  });
}
