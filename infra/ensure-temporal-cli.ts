// Finds or builds the Temporal CLI (run by `make`, so a test run never waits on a build unannounced).
import { ensureTemporalCli } from './temporal-dev-server';

try {
  console.log(`temporal CLI: ${ensureTemporalCli()}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
