import type { Queryable } from '../db/transaction';
import { createApiKey, type ApiKeyInfo, type Role } from './api-keys';

// What an operator does with keys (`weft keys ...`): list, revoke, rotate. Every change fires the
// api_keys trigger, so API processes forget a changed key at once.

export class ApiKeyNotFoundError extends Error {
  constructor(readonly keyId: string) {
    super(`API key ${keyId} not found (or already revoked)`);
    this.name = 'ApiKeyNotFoundError';
  }
}

interface KeyRow {
  key_id: string;
  tenant_id: string;
  user_id: string;
  roles: Role[];
  name: string;
  description: string | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const infoOf = (row: KeyRow): ApiKeyInfo => ({
  keyId: row.key_id,
  tenantId: row.tenant_id,
  userId: row.user_id,
  roles: row.roles,
  name: row.name,
  ...(row.description !== null ? { description: row.description } : {}),
  createdAt: row.created_at,
  ...(row.expires_at ? { expiresAt: row.expires_at } : {}),
  ...(row.revoked_at ? { revokedAt: row.revoked_at } : {}),
});

/** Every key (of one tenant when given), oldest first, without secrets. */
export async function listApiKeys(db: Queryable, filter: { tenantId?: string } = {}): Promise<ApiKeyInfo[]> {
  const { rows } = await db.query<KeyRow>(
    `SELECT key_id, tenant_id, user_id, roles, name, description, created_at, expires_at, revoked_at FROM api_keys
     WHERE $1::text IS NULL OR tenant_id = $1 ORDER BY tenant_id, created_at`,
    [filter.tenantId ?? null],
  );
  return rows.map(infoOf);
}

/** Revokes a key now. Errors: ApiKeyNotFoundError. */
export async function revokeApiKey(db: Queryable, keyId: string): Promise<void> {
  const { rowCount } = await db.query('UPDATE api_keys SET revoked_at = now() WHERE key_id = $1 AND revoked_at IS NULL', [keyId]);
  if (rowCount !== 1) throw new ApiKeyNotFoundError(keyId);
}

/**
 * A new key for the same tenant, user, roles and expiry; the old one keeps working for
 * `graceSeconds` (0: revoked now) so clients can switch over. The new key exists before the old one
 * is cut short, so a failure in between leaves a working key. Errors: ApiKeyNotFoundError.
 */
export async function rotateApiKey(db: Queryable, keyId: string, graceSeconds: number): Promise<string> {
  const { rows } = await db.query<KeyRow>(
    'SELECT key_id, tenant_id, user_id, roles, name, description, created_at, expires_at, revoked_at FROM api_keys WHERE key_id = $1 AND revoked_at IS NULL',
    [keyId],
  );
  const old = rows[0];
  if (!old) throw new ApiKeyNotFoundError(keyId);
  const fresh = await createApiKey(
    db,
    { tenantId: old.tenant_id, userId: old.user_id, roles: old.roles },
    { name: old.name, ...(old.description !== null ? { description: old.description } : {}), ...(old.expires_at ? { expiresAt: old.expires_at } : {}) },
  );
  if (graceSeconds === 0) await revokeApiKey(db, keyId);
  else
    await db.query(`UPDATE api_keys SET expires_at = least(coalesce(expires_at, 'infinity'), now() + make_interval(secs => $2)) WHERE key_id = $1`, [
      keyId,
      graceSeconds,
    ]);
  return fresh;
}
