import type { Queryable } from '../db/transaction';

// The schedules Weft knows, with their owners: a schedule's tenant and user are Weft's to keep,
// everything else about it is its Temporal Schedule's (api/orchestrator/schedules.ts).

export interface ScheduleOwner {
  tenantId: string;
  userId: string;
}

export interface ScheduleRecord extends ScheduleOwner {
  scheduleId: string;
  name: string;
  description: string;
  /** What the owner gave that Temporal does not keep as given. */
  given: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

interface ScheduleRow {
  schedule_id: string;
  tenant_id: string;
  user_id: string;
  name: string;
  description: string;
  given: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const recordOf = (row: ScheduleRow): ScheduleRecord => ({
  scheduleId: row.schedule_id,
  tenantId: row.tenant_id,
  userId: row.user_id,
  name: row.name,
  description: row.description,
  given: row.given,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export async function insertSchedule(db: Queryable, schedule: ScheduleRecord): Promise<void> {
  await db.query(
    `INSERT INTO schedules (schedule_id, tenant_id, user_id, name, description, given, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [schedule.scheduleId, schedule.tenantId, schedule.userId, schedule.name, schedule.description, schedule.given, schedule.createdAt, schedule.updatedAt],
  );
}

/** The schedule, if it is this tenant's. */
export async function findSchedule(db: Queryable, tenantId: string, scheduleId: string): Promise<ScheduleRecord | undefined> {
  const { rows } = await db.query<ScheduleRow>('SELECT * FROM schedules WHERE schedule_id = $1 AND tenant_id = $2', [scheduleId, tenantId]);
  return rows[0] && recordOf(rows[0]);
}

/** A page of the tenant's schedules, newest first: every user's, or one user's; and how many there are. */
export async function listSchedules(
  db: Queryable,
  owner: { tenantId: string; userId?: string },
  page: { limit: number; offset: number },
): Promise<{ schedules: ScheduleRecord[]; total: number }> {
  const { rows } = await db.query<ScheduleRow & { total: string }>(
    `SELECT *, count(*) OVER () AS total FROM schedules
      WHERE tenant_id = $1 AND ($2::text IS NULL OR user_id = $2)
      ORDER BY created_at DESC, schedule_id LIMIT $3 OFFSET $4`,
    [owner.tenantId, owner.userId ?? null, page.limit, page.offset],
  );
  return { schedules: rows.map(recordOf), total: rows[0] ? Number(rows[0].total) : 0 };
}

export async function updateScheduleRecord(
  db: Queryable,
  scheduleId: string,
  change: Pick<ScheduleRecord, 'name' | 'description' | 'given'>,
  at: Date,
): Promise<void> {
  await db.query('UPDATE schedules SET name = $2, description = $3, given = $4, updated_at = $5 WHERE schedule_id = $1', [
    scheduleId,
    change.name,
    change.description,
    change.given,
    at,
  ]);
}

export async function deleteSchedule(db: Queryable, scheduleId: string): Promise<void> {
  await db.query('DELETE FROM schedules WHERE schedule_id = $1', [scheduleId]);
}
