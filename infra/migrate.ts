// Applies pending database migrations: `npm run migrate` (DATABASE_URL picks the database).
import { loadConfig } from '../core/config';
import { migrateDatabase } from '../core/db/migrate';
import { redactUrl } from '../core/db/database';

async function main(): Promise<void> {
  const { databaseUrl } = loadConfig();
  await migrateDatabase(databaseUrl, (line) => console.log(line));
  console.log(`database ${redactUrl(databaseUrl)} is up to date`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
