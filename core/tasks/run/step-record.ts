import type { Queryable } from '../../db/transaction';
import { appendCallOf, type NewTaskEvent } from '../../events/event-log';
import type { RecordInput } from '../../store';
import { recordColumnArrays } from '../../store/record-table';
import { validateAppendBatch } from '../../store/runtime-store';
import { stepUsageParams, type StepUsage } from '../task-usage';

/** What a model step of the task's single agent records, when nothing about it is unusual. */
export interface CommonStep {
  /** The step's records, its reply last: all of one run. */
  records: RecordInput[];
  usage: StepUsage;
  /** The agent whose row the step starts (the first time), with the event that says so. */
  agent: { agentId: string; runId: string; started: NewTaskEvent };
  /** The notifications that send the rest of the step's streamed text. */
  restOfStream: string[];
}

/** The SQLSTATE weft_record_task_step raises when the step is not the common case (migration 027). */
const notCommon = 'WF001';

/**
 * Records a model step of the task's single agent in one statement (weft_record_task_step,
 * migration 027): the records, the usage, the agent's start and the rest of the stream, as the
 * step's transaction would. When the step is not the common case (a retry finding records stored,
 * a stopped run, a task that has ended) nothing is written and the answer is false: the caller
 * takes the transaction's path, which answers each of those as it always has.
 */
export async function recordCommonStep(db: Queryable, step: CommonStep): Promise<boolean> {
  validateAppendBatch(step.records);
  const [first] = step.records;
  const { usage, agent } = step;
  const event = appendCallOf(agent.started, 1).params;
  try {
    await db.query(`SELECT weft_record_task_step(${Array.from({ length: 29 }, (_, i) => `$${i + 1}`).join(', ')})`, [
      first!.runId,
      first!.sessionId ?? null,
      ...recordColumnArrays(step.records),
      ...stepUsageParams(usage),
      agent.agentId,
      // The event's own time is the step's (usage.at): every parameter of the append but that one.
      ...event.slice(0, 6),
      event[7],
      step.restOfStream,
    ]);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === notCommon) return false;
    throw err;
  }
}
