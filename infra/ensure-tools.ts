// Finds or builds the command-line tools Weft needs (run by `make`, so a test run never waits on a
// build unannounced): the Temporal CLI, and with --test also grpcurl for the seed's examples.
import { ensureGoTool, grpcurl, temporalCli } from './go-tools';

try {
  for (const tool of process.argv.includes('--test') ? [temporalCli, grpcurl] : [temporalCli]) {
    console.log(`${tool.binary}: ${ensureGoTool(tool)}`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
