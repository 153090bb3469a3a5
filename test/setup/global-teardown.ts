import { Client } from 'pg';

export default async function globalTeardown(): Promise<void> {
  await globalThis.weftTestTemporal?.stop();
  const adminUrl = process.env.WEFT_TEST_ADMIN_URL;
  const dbName = process.env.WEFT_TEST_DB_NAME;
  if (!adminUrl || !dbName) return;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
