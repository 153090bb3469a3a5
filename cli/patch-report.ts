import type { Client } from '@temporalio/client';
import { Patches, type Patch } from '../workflows/patches';

// `weft patches`: each patch of the workflow code with how many workflows could still take its old
// path: the open task and agent workflows started before it shipped. None left: its `patched()`
// may become `deprecatePatch()` (workflows/patches.ts says the stages).

export interface PatchStanding extends Patch {
  /** Open task and agent workflows started before the patch shipped. */
  openFromBefore: number;
  deprecatable: boolean;
}

const openFromBeforeQuery = (added: string) =>
  `ExecutionStatus = "Running" AND WorkflowType IN ("taskWorkflow", "agentWorkflow") AND StartTime < "${added}T00:00:00Z"`;

/** Each patch's standing: the registry's, or the patches given. */
export async function patchStandings(client: Client, patches: Patch[] = Object.values(Patches)): Promise<PatchStanding[]> {
  return Promise.all(
    patches.map(async (patch) => {
      const { count } = await client.workflow.count(openFromBeforeQuery(patch.added));
      return { ...patch, openFromBefore: count, deprecatable: count === 0 };
    }),
  );
}

export function patchStandingLines(standings: PatchStanding[]): string[] {
  return standings.map(
    (p) =>
      `${p.id} (since ${p.added}): ${p.deprecatable ? 'may be deprecated' : `keep: ${p.openFromBefore} open workflows started before it`}\n  new path: ${p.newPath}`,
  );
}
