import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/transaction';

// API keys: `weft_<key id>_<secret>`. The key id finds the row, the secret is compared by its
// SHA-256 in constant time (the secrets are 256 random bits, so a fast hash is the right tool).

/**
 * approver decides approvals; act_for_users submits work for another user of the tenant (recorded as
 * such); admin holds every role of its tenant; platform_admin manages what every tenant shares.
 */
export const roles = ['approver', 'act_for_users', 'admin', 'platform_admin'] as const;
export type Role = (typeof roles)[number];

export const isRole = (name: string): name is Role => (roles as readonly string[]).includes(name);

export interface Principal {
  tenantId: string;
  userId: string;
  roles: Role[];
  /** The key the caller authenticated with (absent when authentication is off). */
  keyId?: string;
}

/** What an API key is, without its secret. */
export interface ApiKeyInfo extends Required<Principal> {
  /** What its owner calls it ('' when it was given no name). */
  name: string;
  description?: string;
  createdAt: Date;
  expiresAt?: Date;
  revokedAt?: Date;
}

/** Keys are changed through this channel's NOTIFY (a trigger on api_keys), payload: the key id. */
export const apiKeyChannel = 'weft_api_keys';

const keyPattern = /^weft_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;
const sha256 = (secret: string) => createHash('sha256').update(secret).digest();

export interface NewKeyOptions {
  expiresAt?: Date;
  name?: string;
  description?: string;
}

/** A new key for the principal, valid until `expiresAt` if given. The key is returned once and never stored. */
export async function createApiKey(db: Queryable, principal: Principal, options: NewKeyOptions = {}): Promise<string> {
  if (!principal.tenantId || !principal.userId) throw new Error('an API key needs a tenant and a user');
  const keyId = randomBytes(9)
    .toString('base64url')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '0')
    .slice(0, 12);
  const secret = randomBytes(32).toString('base64url');
  await db.query(
    'INSERT INTO api_keys (key_id, secret_sha256, tenant_id, user_id, roles, expires_at, name, description) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [keyId, sha256(secret), principal.tenantId, principal.userId, principal.roles, options.expiresAt ?? null, options.name ?? '', options.description ?? null],
  );
  return `weft_${keyId}_${secret}`;
}

/** The principal a key stands for and until when, or undefined for a malformed, unknown, expired or revoked key. */
export async function verifyApiKey(db: Queryable, key: string): Promise<{ principal: Principal; expiresAt?: Date } | undefined> {
  const match = keyPattern.exec(key);
  if (!match) return undefined;
  const rows = await db.query<{ secret_sha256: Buffer; tenant_id: string; user_id: string; roles: Role[]; expires_at: Date | null }>(
    `SELECT secret_sha256, tenant_id, user_id, roles, expires_at FROM api_keys
     WHERE key_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [match[1]],
  );
  const row = rows.rows[0];
  if (!row || !timingSafeEqual(row.secret_sha256, sha256(match[2]!))) return undefined;
  const principal = { tenantId: row.tenant_id, userId: row.user_id, roles: row.roles, keyId: match[1]! };
  return { principal, ...(row.expires_at ? { expiresAt: row.expires_at } : {}) };
}

/** Whether a key id is still usable (not revoked, not expired). */
export async function isKeyUsable(db: Queryable, keyId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM api_keys WHERE key_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())', [
    keyId,
  ]);
  return rowCount === 1;
}
