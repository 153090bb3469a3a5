// Finds or builds the command-line tools Weft needs (run by `make`, so a test run never waits on a
// build unannounced): the Temporal CLI, grpcurl for the seed's examples, and bubblewrap, Debian's
// python3 and python3-seccomp for the Python sandbox; for the tests (--test) also Chromium, which
// the Web UI test drives. Without the sandbox's packages `make up` still starts (python_executor
// then refuses to run, saying why); the tests need them.
import { ensureGoTool, grpcurl, temporalCli } from './go-tools';
import { bubblewrap, chromium, ensureDebianProgram, pythonSeccomp } from './debian-packages';

const forTests = process.argv.includes('--test');
try {
  for (const tool of [temporalCli, grpcurl]) {
    console.log(`${tool.binary}: ${ensureGoTool(tool)}`);
  }
  try {
    console.log(`bwrap: ${ensureDebianProgram(bubblewrap)}`);
    console.log(`python3 with python3-seccomp: ${ensureDebianProgram(pythonSeccomp)}`);
    if (forTests) console.log(`chromium: ${ensureDebianProgram(chromium)}`);
  } catch (err) {
    if (forTests) throw err;
    console.warn(`warning: ${err instanceof Error ? err.message : String(err)}`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
