import type { Queryable } from '../db/transaction';

/**
 * Claims a session id for the tenant unless another tenant already holds it. True when the tenant
 * owns the session afterwards; false means the id is someone else's and must look unknown.
 */
export async function claimSession(db: Queryable, tenantId: string, sessionId: string): Promise<boolean> {
  const { rows } = await db.query<{ tenant_id: string }>(
    `WITH claimed AS (
       INSERT INTO session_tenants (session_id, tenant_id) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING RETURNING tenant_id
     )
     SELECT tenant_id FROM claimed UNION ALL SELECT tenant_id FROM session_tenants WHERE session_id = $1`,
    [sessionId, tenantId],
  );
  // A claim racing ours commits after this statement's snapshot: read it once more.
  const owner =
    rows[0]?.tenant_id ??
    (await db.query<{ tenant_id: string }>('SELECT tenant_id FROM session_tenants WHERE session_id = $1', [sessionId])).rows[0]?.tenant_id;
  return owner === tenantId;
}
