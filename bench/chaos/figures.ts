import type { Pool } from 'pg';
import type { FollowedStream } from './load';

// What a chaos run reports: how its tasks ended and what `weft verify` found, and whether every
// stream delivered its task's log exactly (each event once, none missing) across reconnections.

export interface ChaosFigures {
  wallMs: number;
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
  recovery: Record<string, number[]>;
  faults: { workerKills: number; apiRestarts: number; servicesRestarted: boolean };
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
