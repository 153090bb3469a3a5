// Finds or builds the command-line tools Weft needs (run by `make`, so a test run never waits on a
// build unannounced): the Temporal CLI, grpcurl for the seed's examples, and bubblewrap for the
// Python sandbox. Without bubblewrap `make up` still starts (python_executor then refuses to run,
// saying why); the tests (--test) need it.
import { ensureGoTool, grpcurl, temporalCli } from './go-tools';
import { ensureBubblewrap } from './sandbox-tools';

const forTests = process.argv.includes('--test');
try {
  for (const tool of [temporalCli, grpcurl]) {
    console.log(`${tool.binary}: ${ensureGoTool(tool)}`);
  }
  try {
    console.log(`bwrap: ${ensureBubblewrap()}`);
  } catch (err) {
    if (forTests) throw err;
    console.warn(`warning: ${err instanceof Error ? err.message : String(err)}`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
