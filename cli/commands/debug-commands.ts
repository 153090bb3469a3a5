import path from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { forkTask } from '../fork';
import { withOperatorDeps, withTemporal } from '../operator-deps';
import { positiveNumberOption } from '../options';
import { explanationLines } from '../replay-explanation';
import { historiesFrom, replayHistories, type ReplayVerdict } from '../replay';
import { tasksSince, verifyTask } from '../verify';
import { patchStandingLines, patchStandings } from '../patch-report';

interface ReplayOptions {
  workflows?: string;
  file?: string;
  query?: string;
  limit: number;
  temporal?: string;
  namespace?: string;
}

function verdictText(verdict: ReplayVerdict): string[] {
  const what = `${verdict.workflowId} (${verdict.events} events)`;
  if (verdict.ok) return [`OK: ${what} replays against the current workflow code`];
  if (verdict.mismatch) return [`MISMATCH: ${what} no longer matches the current workflow code`, ...explanationLines(verdict.mismatch)];
  return [`ERROR: ${what} could not be replayed: ${verdict.error}`];
}

async function replayCommand(ctx: CliContext, workflowId: string | undefined, options: ReplayOptions): Promise<void> {
  const sources = [workflowId && !options.file, options.file, options.query].filter(Boolean).length;
  if (sources !== 1) throw new Error('give one of: a workflow id, --file <history.json> (with its id optionally), or --query <visibility query>');
  const candidate = options.workflows ? [path.resolve(options.workflows)] : [];
  const verdicts = options.file
    ? await replayHistories(historiesFrom({ file: options.file, ...(workflowId ? { workflowId } : {}) }), ...candidate)
    : await withTemporal({ address: options.temporal, namespace: options.namespace }, (client) =>
        replayHistories(
          historiesFrom(options.query ? { client, query: options.query, limit: options.limit } : { client, workflowId: workflowId! }),
          ...candidate,
        ),
      );
  const failed = verdicts.filter((v) => !v.ok).length;
  ctx
    .output()
    .data({ verdicts, replayed: verdicts.length, failed }, () => [
      ...verdicts.flatMap(verdictText),
      ...(options.query ? [`replayed ${verdicts.length} workflows: ${verdicts.length - failed} match, ${failed} do not`] : []),
    ]);
  process.exitCode = failed === 0 ? 0 : 1;
}

export function addDebugCommands(program: Command, ctx: CliContext): void {
  program
    .command('replay')
    .description('replay workflows against the current workflow code: a live one, an exported history, or the newest a query finds (a deploy gate)')
    .argument('[workflow-id]', 'the workflow to fetch from Temporal (with --file: replay under this id instead of the recorded one)')
    .option('--file <history.json>', 'a history exported as JSON (temporal workflow show --output json)')
    .option('--query <visibility query>', `replay the newest workflows this query finds, e.g. "WorkflowType = 'taskWorkflow'"`)
    .option('--limit <n>', 'with --query: how many', positiveNumberOption, 20)
    .option('--workflows <module>', "replay against this workflows module (a candidate build's) instead of this checkout's")
    .option('--temporal <address>', 'Temporal frontend (default TEMPORAL_ADDRESS; TLS and API key from the TEMPORAL_* settings)')
    .option('--namespace <namespace>', 'Temporal namespace (default TEMPORAL_NAMESPACE)')
    .action((workflowId: string | undefined, options: ReplayOptions) => replayCommand(ctx, workflowId, options));

  program
    .command('patches')
    .description('each patch of the workflow code, and whether an open workflow could still take its old path')
    .option('--temporal <address>', 'Temporal frontend (default TEMPORAL_ADDRESS)')
    .option('--namespace <namespace>', 'Temporal namespace (default TEMPORAL_NAMESPACE)')
    .action(async (options: { temporal?: string; namespace?: string }) => {
      const standings = await withTemporal({ address: options.temporal, namespace: options.namespace }, (client) => patchStandings(client));
      ctx.output().data({ patches: standings }, () => patchStandingLines(standings));
    });

  program
    .command('verify')
    .description("check tasks against Temporal's view and the store's invariants; exit code 1 on any disagreement")
    .argument('[tasks...]', 'task ids (default: every task created since --since)')
    .option('--since <time>', 'an ISO time, or hours back like 24h', '24h')
    .action(async (taskIds: string[], options: { since: string }) => {
      const hours = /^(\d+(?:\.\d+)?)h$/.exec(options.since);
      const since = hours ? new Date(Date.now() - Number(hours[1]) * 3_600_000) : new Date(options.since);
      if (Number.isNaN(since.getTime())) throw new Error(`--since must be an ISO time or hours like 24h, not "${options.since}"`);
      await withOperatorDeps(async (deps) => {
        const tasks = taskIds.length > 0 ? taskIds : await tasksSince(deps.pool, since);
        const problems = (await Promise.all(tasks.map((taskId) => verifyTask(deps, taskId)))).flat();
        ctx
          .output()
          .data({ tasks: tasks.length, problems }, () => [
            ...problems,
            problems.length === 0 ? `OK: ${tasks.length} tasks verified` : `${problems.length} disagreements in ${tasks.length} tasks`,
          ]);
        process.exitCode = problems.length === 0 ? 0 : 1;
      });
    });

  program
    .command('fork')
    .description("run a task again as a new task from its step N: earlier steps reuse the task's recorded model replies and tool results")
    .argument('<task>', 'the task to fork')
    .requiredOption('--from-step <n>', 'the first model step (1-based) that runs fresh', positiveNumberOption)
    .option('--task-queue <queue>', "the workers' task queue (default WEFT_TASK_QUEUE)")
    .action(async (taskId: string, options: { fromStep: number; taskQueue?: string }) => {
      const forkId = await withOperatorDeps((deps) =>
        forkTask({ ...deps, ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}) }, taskId, options.fromStep),
      );
      ctx
        .output()
        .data({ task_id: forkId, forked_from: taskId, from_step: options.fromStep }, () => [
          `forked ${taskId} from step ${options.fromStep} as ${forkId}`,
          `follow it with: ${ctx.selfCommand} watch ${forkId}`,
        ]);
    });
}
