// Finds or builds the command-line tools Weft needs (run by `make`, so a test run never waits on a
// build unannounced).
import { ensureGoTool, temporalCli } from './go-tools';

try {
  console.log(`temporal CLI: ${ensureGoTool(temporalCli)}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
