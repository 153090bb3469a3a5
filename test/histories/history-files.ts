import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

// Golden history files: each run of a workflow as JSON beside this file, and the manifest that
// names the workflow id each file must replay under (child ids and keys derive from it).

export const historiesDir = __dirname;
export const manifestFile = path.join(historiesDir, 'manifest.json');

/** Writes every run of the workflow (oldest first) as `<name>.json`, or `<name>.run-N.json` when it has several (continued as new, or reset); returns the manifest entries. */
export async function writeHistories(temporal: Client, workflowId: string, name: string): Promise<Record<string, string>> {
  const runs: string[] = [];
  for await (const run of temporal.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(run.runId);
  runs.reverse();
  const entries: Record<string, string> = {};
  for (const [index, runId] of runs.entries()) {
    const history = await temporal.workflow.getHandle(workflowId, runId).fetchHistory();
    const file = path.join(historiesDir, runs.length > 1 ? `${name}.run-${index + 1}.json` : `${name}.json`);
    writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`);
    entries[path.basename(file)] = workflowId;
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
  }
  return entries;
}

/**
 * The name a capture script writes its histories under: its own, or the one given with `--as`,
 * which records the path again as the current code runs it, beside the histories it keeps.
 */
function historyName(name: string): string {
  const as = process.argv.indexOf('--as');
  return as > 0 && process.argv[as + 1] ? process.argv[as + 1]! : name;
}

/** Writes a workflow's histories beside the others and adds them to the manifest (capture scripts of one path). */
export async function addToGoldenHistories(temporal: Client, workflowId: string, name: string): Promise<void> {
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, string>;
  const named = historyName(name);
  if (named !== name && Object.keys(manifest).some((file) => file === `${named}.json` || file.startsWith(`${named}.run-`))) {
    throw new Error(`${named} is a golden history already: never record one again, name the new one`);
  }
  Object.assign(manifest, await writeHistories(temporal, workflowId, named));
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
}
