// Freezes the current workflow code as a build: `tsx test/replay/freeze-build.ts`. Run it before a
// change to the workflow code that histories recorded now could not replay on: the bundle is kept
// under test/replay/builds, named by its build id (the id a versioned worker of this code runs as),
// and the golden histories recorded by this code name it in history-builds.json.
import { writeFileSync } from 'node:fs';
import { bundleWorkflows } from '../../workers/create-worker';
import { buildIdOf } from '../../workers/worker-version';
import { frozenBundleOf } from './frozen-builds';

async function main(): Promise<void> {
  const code = await bundleWorkflows();
  const buildId = buildIdOf(code);
  writeFileSync(frozenBundleOf(buildId), code);
  process.stdout.write(`${buildId}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exitCode = 1;
});
