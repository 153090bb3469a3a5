import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { loadConfig } from '../../core/config';
import { reportJUnit, reportLines, reportMarkdown } from '../../core/eval/eval-report';
import { loadEvalSet } from '../../core/eval/eval-set';
import { parseGate, scoreFloor } from '../../core/eval/gate';
import { scorerKinds, type ScorerKind } from '../../core/eval/scorers';
import { policyProblem, recordOnlyPolicy, type EvalToolPolicy, type UnrecordedCall } from '../../core/tasks/run/eval-tools';
import { modelTiers, type ModelTier } from '../../core/orchestration/plan';
import type { CliContext } from '../cli-context';
import { readTemplateVersion } from '../eval/candidate';
import { deleteEval } from '../eval/delete-eval';
import { selectCases, type Selection } from '../eval/eval-cases';
import { recordSet } from '../eval/record-set';
import { runEval } from '../eval/run-eval';
import { withOperatorDeps } from '../operator-deps';
import { positiveNumberOption, textOrFile } from '../options';

interface EvalCommandOptions {
  baseline?: string;
  where?: string;
  template?: string;
  last: number;
  tenant?: string;
  id?: string;
  tier?: ModelTier;
  instructions?: string;
  templateVersion?: string;
  scorer?: ScorerKind;
  expect?: string;
  tolerance: number;
  tools: EvalToolPolicy;
  concurrency: number;
  failOn?: string;
  junit?: string;
  markdown?: string;
  taskQueue?: string;
}

const evalIdPattern = /^[a-z0-9][a-z0-9-]{0,39}$/;

function evalIdOption(text: string): string {
  if (!evalIdPattern.test(text)) throw new Error(`--id must be 1-40 lowercase letters, digits or "-", not "${text}"`);
  return text;
}

/** `idempotent=live,keyed=stub`: what an eval does with calls its record lacks, per tool class (the rest refused). */
function toolPolicyOption(text: string): EvalToolPolicy {
  const policy = { ...recordOnlyPolicy };
  for (const part of text.split(',').map((p) => p.trim())) {
    const [kind, what] = part.split('=');
    if (!kind || !(kind in policy) || !['refuse', 'stub', 'live'].includes(what ?? '')) {
      throw new Error(`--tools: "${part}" is not <class>=<refuse|stub|live> with class one of ${Object.keys(policy).join(', ')}`);
    }
    policy[kind as keyof EvalToolPolicy] = what as UnrecordedCall;
  }
  const problem = policyProblem(policy);
  if (problem) throw new Error(`--tools: ${problem}`);
  return policy;
}

const newEvalId = () => `${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${randomBytes(2).toString('hex')}`;

function selectionOf(taskIds: string[], options: EvalCommandOptions, evalsDir: string): { selection: Selection; setScorer?: ScorerKind } {
  const given = [taskIds.length > 0, options.baseline, options.where, options.template].filter(Boolean).length;
  if (given !== 1) throw new Error('give one of: task ids, --baseline <set>, --where <visibility query>, or --template <name> (with --last)');
  const tenant = options.tenant ? { tenantId: options.tenant } : {};
  if (taskIds.length > 0) return { selection: { taskIds } };
  if (options.baseline) {
    const set = loadEvalSet(options.baseline, evalsDir);
    return { selection: { set, ...tenant }, setScorer: set.scorer };
  }
  if (options.where) return { selection: { where: options.where, limit: options.last } };
  return { selection: { template: options.template!, last: options.last, ...tenant } };
}

async function evalCommand(ctx: CliContext, taskIds: string[], options: EvalCommandOptions): Promise<void> {
  const config = loadConfig();
  const { selection, setScorer } = selectionOf(taskIds, options, config.evalsDir);
  const gate = options.failOn ? parseGate(options.failOn) : undefined;
  const evalId = options.id ?? newEvalId();
  const report = await withOperatorDeps(async (deps) => {
    const cases = await selectCases(deps, selection);
    return runEval(
      { ...deps, ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}) },
      {
        evalId,
        candidate: {
          ...(options.tier ? { tier: options.tier } : {}),
          ...(options.instructions !== undefined ? { instructions: textOrFile(options.instructions) } : {}),
          ...(options.templateVersion ? { templateVersion: readTemplateVersion(options.templateVersion, config.templatesDir) } : {}),
        },
        tools: options.tools,
        scorer: {
          kind: options.scorer ?? setScorer ?? 'normalised',
          ...(options.expect !== undefined ? { expect: textOrFile(options.expect) } : {}),
          tolerance: options.tolerance,
        },
        concurrency: Math.max(1, Math.floor(options.concurrency)),
        ...(gate ? { gate } : {}),
      },
      cases,
    );
  });
  if (options.markdown) writeFileSync(options.markdown, reportMarkdown(report));
  if (options.junit) writeFileSync(options.junit, reportJUnit(report, (gate && scoreFloor(gate)) ?? 1));
  ctx.output().data(report, () => [...reportLines(report), `delete its tasks with: ${ctx.selfCommand} eval delete ${evalId}`]);
  process.exitCode = report.failedOn.length > 0 ? 1 : 0;
}

export function addEvalCommands(program: Command, ctx: CliContext): void {
  const evalCommands = program
    .command('eval')
    .description('run recorded tasks again under a candidate, their tool calls answered from the record, and score the answers (a CI gate)')
    .argument('[tasks...]', 'recorded task ids')
    .option('--baseline <set>', 'an eval set: a YAML file, or its name in WEFT_EVALS_DIR (evals/)')
    .option('--where <query>', `the completed tasks a Temporal visibility query finds, e.g. "WeftMode = 'STANDARD'"`)
    .option('--template <name>', "a template's last runs (name, or name@version)")
    .option('--last <n>', 'with --template or --where: how many', positiveNumberOption, 10)
    .option('--tenant <id>', "with --baseline or --template: only this tenant's recorded tasks")
    .option('--id <eval-id>', 'name the eval (default: a new id); run again with the same id, it goes on where it stopped', evalIdOption)
    .addOption(new Option('--tier <tier>', 'candidate: run every model step on this tier').choices(modelTiers))
    .option('--instructions <text>', "candidate: the single agent's instructions (or @file)")
    .option('--template-version <version>', 'candidate: run template tasks on this version of their template')
    .addOption(
      new Option('--scorer <kind>', 'how answers are scored against the recorded answer (or --expect) when a case states no expectation').choices(scorerKinds),
    )
    .option('--expect <text>', 'what the scorer compares with instead of the recorded answer: a regex pattern, a judge rubric (or @file)')
    .option('--tolerance <n>', 'the numeric scorer: how far the number may be', positiveNumberOption, 0)
    .option(
      '--tools <policy>',
      'calls the record lacks, per tool class: e.g. idempotent=live,keyed=stub (the rest: refuse)',
      toolPolicyOption,
      recordOnlyPolicy,
    )
    .option('--concurrency <n>', 'cases run at once', positiveNumberOption, 8)
    .option('--fail-on <conditions>', 'exit 1 when these hold, e.g. "score<0.9 || cost>1.2x" (metrics: score, cost, tokens, latency, failed)')
    .option('--junit <file>', 'write a JUnit XML report')
    .option('--markdown <file>', 'write a Markdown report')
    .option('--task-queue <queue>', "the workers' task queue (default WEFT_TASK_QUEUE)")
    .action((taskIds: string[], options: EvalCommandOptions) => evalCommand(ctx, taskIds, options));

  evalCommands
    .command('delete')
    .description("delete an eval's tasks from Temporal and the store")
    .argument('<eval-id>', 'the eval')
    .action(async (evalId: string) => {
      const deleted = await withOperatorDeps((deps) => deleteEval(deps, evalId));
      ctx.output().data({ eval_id: evalId, deleted }, () => [`deleted eval ${evalId}: ${deleted} tasks`]);
    });

  evalCommands
    .command('record')
    .description("submit an eval set's queries through the API (once: recording again finds the same tasks) and wait for them, so they can be run again")
    .argument('<set>', 'an eval set: a YAML file, or its name in WEFT_EVALS_DIR (evals/)')
    .action(async (setName: string) => {
      const recorded = await recordSet(ctx.api(), loadEvalSet(setName, loadConfig().evalsDir));
      ctx.output().data({ recorded }, () => recorded.map((r) => `${r.status} ${r.taskId}: ${r.query}`));
      process.exitCode = recorded.every((r) => r.status === 'COMPLETED') ? 0 : 1;
    });
}
