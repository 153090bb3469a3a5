import type { Pool } from 'pg';
import type { RecordedRequest } from '../../test/model-server/scripted-model-server';
import type { FaultHit } from './faults';
import type { FollowedStream } from './load';
import type { OutsideVerdict } from './outside-oracle';
import type { SideEffectFigures } from './side-effects';

// What a chaos run reports: the outside judgement (answers, the model's calls, retried
// activities), how its tasks ended and what `weft verify` found, whether every stream delivered
// its task's log exactly (each event once, none missing) across reconnections, and what each kind
// of fault hit.

/** Per kind of fault: how often it struck, and the work it hit. */
export interface FaultFigures {
  count: number;
  downMs: number[];
  /** Model calls in flight at the moments it struck. */
  modelCallsInFlight: number;
  /** Calls to the side-effect peer in flight at the moments it struck. */
  effectCallsInFlight: number;
  /** Model calls whose connection closed unanswered within 2 s of a strike: cut off (a worker's). */
  modelCallsCutOff: number;
  /** Events its streamed tasks wrote while it was down (the API's), counted in their logs before and after. */
  eventsWrittenWhileDown: number;
}

export interface ChaosFigures {
  wallMs: number;
  outside: OutsideVerdict;
  sideEffects: SideEffectFigures;
  tasks: { submitted: number; terminal: number; byStatus: Record<string, number>; verifiedClean: number };
  disagreements: { duplicatedRecords: number; missingRecords: number; eventGaps: number; other: number; lines: string[] };
  streams: {
    followed: number;
    endedAtFinalEvent: number;
    reconnects: number;
    resumed: number;
    resumedWithoutGapOrDuplicate: number;
    withGapOrDuplicate: number;
  };
  faults: Record<FaultHit['kind'], FaultFigures>;
  /** Weft's processes that exited though nothing killed them (each restarted, as a supervisor would). */
  unexpectedExits: { api: number; workers: number };
}

const kindsOfDisagreement = {
  duplicatedRecords: /run_started records|run_completed records|has no completed activity/,
  missingRecords: /has no record|is not linked/,
  eventGaps: /the log has a gap|not a final event/,
};

export async function taskFigures(
  pool: Pool,
  taskIds: string[],
  verified: Array<{ taskId: string; problems: string[] }>,
): Promise<Pick<ChaosFigures, 'tasks' | 'disagreements'>> {
  const { rows } = await pool.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM tasks WHERE task_id = ANY($1) GROUP BY status', [
    taskIds,
  ]);
  const byStatus = Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  const terminal = rows.filter((row) => !['QUEUED', 'RUNNING'].includes(row.status)).reduce((sum, row) => sum + Number(row.n), 0);
  const lines = verified.flatMap((task) => task.problems);
  const count = (pattern: RegExp) => lines.filter((line) => pattern.test(line)).length;
  const classified = Object.values(kindsOfDisagreement).reduce((sum, pattern) => sum + count(pattern), 0);
  return {
    tasks: { submitted: taskIds.length, terminal, byStatus, verifiedClean: verified.filter((task) => task.problems.length === 0).length },
    disagreements: {
      duplicatedRecords: count(kindsOfDisagreement.duplicatedRecords),
      missingRecords: count(kindsOfDisagreement.missingRecords),
      eventGaps: count(kindsOfDisagreement.eventGaps),
      other: lines.length - classified,
      lines,
    },
  };
}

export async function streamFigures(pool: Pool, followed: FollowedStream[]): Promise<Pick<ChaosFigures, 'streams'>> {
  const exact = await Promise.all(
    followed.map(async (stream) => {
      const { rows } = await pool.query<{ seq: string }>('SELECT seq FROM task_events WHERE workflow_id = $1 ORDER BY seq', [stream.workflowId]);
      return JSON.stringify(stream.seqs) === JSON.stringify(rows.map((row) => Number(row.seq)));
    }),
  );
  const resumed = followed.filter((stream) => stream.reconnects > 0);
  return {
    streams: {
      followed: followed.length,
      endedAtFinalEvent: followed.filter((stream) => stream.ended).length,
      reconnects: followed.reduce((sum, stream) => sum + stream.reconnects, 0),
      resumed: resumed.length,
      resumedWithoutGapOrDuplicate: followed.filter((stream, i) => stream.reconnects > 0 && exact[i]).length,
      withGapOrDuplicate: exact.filter((ok) => !ok).length,
    },
  };
}

export function faultFigures(modelRequests: RecordedRequest[], hits: FaultHit[]): Record<FaultHit['kind'], FaultFigures> {
  const figures = (kind: FaultHit['kind']): FaultFigures => {
    const of = hits.filter((hit) => hit.kind === kind);
    const cutOff = modelRequests.filter(
      (request) =>
        request.answeredAt === undefined &&
        request.closedAt !== undefined &&
        of.some((hit) => {
          const closedAtMs = performance.timeOrigin + request.closedAt!;
          return closedAtMs >= hit.at && closedAtMs <= hit.at + 2_000;
        }),
    ).length;
    return {
      count: of.length,
      downMs: of.map((hit) => hit.downMs),
      modelCallsInFlight: of.reduce((sum, hit) => sum + hit.modelCallsInFlight, 0),
      effectCallsInFlight: of.reduce((sum, hit) => sum + hit.effectCallsInFlight, 0),
      modelCallsCutOff: cutOff,
      eventsWrittenWhileDown: of.reduce((sum, hit) => sum + (hit.eventsWrittenWhileDown ?? 0), 0),
    };
  };
  return { worker: figures('worker'), api: figures('api'), postgres: figures('postgres'), temporal: figures('temporal') };
}
