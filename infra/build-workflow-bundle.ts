// Bundles the workflow code once, ahead of the worker: `tsx infra/build-workflow-bundle.ts [out.js]`.
// A worker given WEFT_WORKFLOW_BUNDLE starts faster and uses far less memory than one that runs
// webpack itself at start-up.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflows } from '../workers/create-worker';
import { stateDir } from './temporal-dev-server';

export const defaultBundlePath = path.join(stateDir, 'workflow-bundle.js');

export async function buildWorkflowBundle(out = defaultBundlePath): Promise<string> {
  const code = await bundleWorkflows();
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, code);
  return out;
}

if (require.main === module) {
  buildWorkflowBundle(process.argv[2]).then(
    (out) => console.log(`workflow bundle written to ${out}`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
