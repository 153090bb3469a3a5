import { isDeepStrictEqual } from 'node:util';
import type { Queryable } from '../../db/transaction';
import type { RuntimeStore } from '../../store';
import type { Idempotency, ToolOutcome } from '../../tools/tool';
import { recordedToolOutcome } from './forked-steps';
import type { RecordOwner } from './run-records';

// An eval (`weft eval`) runs a recorded task again under a candidate (another tier, prompt or
// template version, or the current code). Its model steps run fresh; its tool calls are answered
// from the record: a call with the same tool and the same arguments as one the recorded task made
// gets that call's recorded outcome. A call the record does not hold is handled as the eval's
// policy says for the tool's class, and never reaches a real side effect unless the tool is
// idempotent and the policy allows it.

/** What an eval does with a call the record does not hold. `live` runs it: idempotent tools only. */
export type UnrecordedCall = 'refuse' | 'stub' | 'live';

export type EvalToolPolicy = Record<Idempotency, UnrecordedCall>;

/** Refuse every call the record does not hold: nothing an eval runs reaches a tool. */
export const recordOnlyPolicy: EvalToolPolicy = { idempotent: 'refuse', keyed: 'refuse', at_most_once: 'refuse' };

/** Set on a task that is one case of an eval. */
export interface TaskEval {
  /** The eval this task belongs to (the WeftEval search attribute, tasks.eval_id). */
  evalId: string;
  /** The recorded task it runs again. */
  fromTaskId: string;
  tools: EvalToolPolicy;
}

/** Why a class may not run for real in an eval; undefined when the policy is allowed. */
export function policyProblem(policy: EvalToolPolicy): string | undefined {
  const unsafe = (['keyed', 'at_most_once'] as const).filter((kind) => policy[kind] === 'live');
  return unsafe.length > 0 ? `${unsafe.join(' and ')} tools have side effects: an eval may refuse or stub them, never run them` : undefined;
}

interface InvokedCall {
  workflow_id: string;
  event_key: string;
  tool_call_id: string;
  arguments: unknown;
}

/** The run whose call an invocation event announced: its key is <workflow>/tool/<run>/<call id>/invoked. */
const runOfInvocation = (call: InvokedCall) => call.event_key.slice(`${call.workflow_id}/tool/`.length, -`/${call.tool_call_id}/invoked`.length);

/**
 * The recorded outcome of the recorded task's first call of `name` with these arguments (in any of
 * its runs: the task's own and its agents'), or undefined when it made no such call.
 */
export async function recordedCallOutcome(
  db: Queryable,
  store: RuntimeStore,
  fromTaskId: string,
  owner: RecordOwner,
  call: { name: string; arguments: Record<string, unknown> },
): Promise<ToolOutcome | undefined> {
  const { rows } = await db.query<InvokedCall>(
    `SELECT e.workflow_id, e.event_key, e.payload->>'tool_call_id' AS tool_call_id, e.payload->'arguments' AS arguments
     FROM tasks t JOIN task_events e ON e.workflow_id = t.workflow_id
     WHERE t.task_id = $1 AND e.event_type = 'TOOL_INVOKED' AND e.payload->>'tool' = $2
     ORDER BY e.seq`,
    [fromTaskId, call.name],
  );
  for (const invoked of rows.filter((row) => isDeepStrictEqual(row.arguments ?? {}, call.arguments))) {
    const outcome = await recordedToolOutcome(store, runOfInvocation(invoked), owner, invoked.tool_call_id);
    if (outcome) return outcome;
  }
  return undefined;
}

/**
 * The outcome an eval gives a call its record does not hold (refused or stubbed); undefined: run
 * it. A dangerous tool never runs in an eval: nobody is asked to approve an eval's calls.
 */
export function unrecordedOutcome(
  policy: EvalToolPolicy,
  call: { name: string },
  { idempotency, dangerous }: { idempotency: Idempotency; dangerous: boolean },
): ToolOutcome | undefined {
  const chosen = policy[idempotency];
  if (chosen === 'live' && idempotency === 'idempotent' && !dangerous) return undefined;
  if (chosen === 'stub') {
    return { ok: true, content: { eval_stub: true, message: `${call.name} was not run: this eval answers calls the recorded task did not make with a stub` } };
  }
  return {
    ok: false,
    error: {
      category: 'validation',
      message: `not run in an eval: the recorded task made no ${call.name} call with these arguments, and the eval refuses ${idempotency} tools' other calls`,
    },
  };
}
