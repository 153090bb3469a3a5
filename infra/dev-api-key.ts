import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createApiKey, verifyApiKey } from '../core/auth/api-keys';
import { createPool } from '../core/db/database';
import { stateDir } from './temporal-dev-server';

/** Where `make up` keeps its development key; the `weft` CLI falls back to it. */
export const devApiKeyFile = path.join(stateDir, 'dev-api-key');

/** The development key `make up` prints: reused while it is valid, created (tenant "dev") otherwise. */
export async function ensureDevApiKey(databaseUrl: string): Promise<string> {
  const pool = createPool(databaseUrl, { size: 1 });
  try {
    const existing = existsSync(devApiKeyFile) ? readFileSync(devApiKeyFile, 'utf8').trim() : '';
    if (existing && (await verifyApiKey(pool, existing))) return existing;
    const key = await createApiKey(pool, { tenantId: 'dev', userId: process.env.USER || 'developer', roles: ['approver', 'admin'] });
    writeFileSync(devApiKeyFile, `${key}\n`, { mode: 0o600 });
    return key;
  } finally {
    await pool.end();
  }
}
