import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ModelTier } from '../../core/orchestration/plan';
import type { TaskEval } from '../../core/tasks/run/eval-tools';
import { loadTemplateCatalog, type TemplateCatalog } from '../../core/templates/template-catalog';
import type { TaskWorkflowInput } from '../../workflows/task-workflow-types';

// What an eval changes when it runs a recorded task again: nothing (the current code), the model
// tier, the instructions (the prompt of a single-agent task), or the version of the template
// whose plan the task ran.

export interface Candidate {
  tier?: ModelTier;
  instructions?: string;
  templateVersion?: TemplateVersion;
}

/** A version of the templates to run each template task with, and the templates read once for the eval. */
export interface TemplateVersion {
  version: string;
  catalog: TemplateCatalog;
  dir: string;
}

/** Every tool the templates name: the worker checks them against its registry when the task runs. */
function toolsNamedIn(templatesDir: string): string[] {
  const files = readdirSync(templatesDir).filter((file) => /\.ya?ml$/.test(file));
  return files.flatMap((file) => {
    const agents = (parseYaml(readFileSync(path.join(templatesDir, file), 'utf8')) as { agents?: Array<{ tools?: string[] }> } | null)?.agents ?? [];
    return agents.flatMap((agent) => agent.tools ?? []);
  });
}

/** The templates of `dir`, read once for an eval whose candidate runs `version` of each task's template. */
export function readTemplateVersion(version: string, dir: string): TemplateVersion {
  return { version, catalog: loadTemplateCatalog(dir, toolsNamedIn(dir)), dir };
}

function templateOf(input: TaskWorkflowInput, { version, catalog, dir }: TemplateVersion): Pick<TaskWorkflowInput, 'manualPlan' | 'template'> {
  if (!input.template) throw new Error(`task ${input.taskId} ran no template: --template-version applies to template tasks only`);
  const name = input.template.split('@')[0]!;
  const template = catalog.find(name, version);
  if (!template) throw new Error(`template ${name}@${version} not found in ${dir}`);
  return { manualPlan: template.plan, template: template.key };
}

/**
 * The recorded task's input as the candidate runs it: a new task of the eval, outside any session
 * (it adds nothing to a conversation), never waiting for a person, its model steps asked afresh.
 */
export function candidateInput(recorded: TaskWorkflowInput, taskId: string, evaluation: TaskEval, candidate: Candidate): TaskWorkflowInput {
  const { resume, fork, requireApproval, reviewPlan, ...original } = recorded;
  const { manualPlan, template } = candidate.templateVersion ? templateOf(recorded, candidate.templateVersion) : original;
  const plan = manualPlan && candidate.tier ? { ...manualPlan, agents: manualPlan.agents.map((agent) => ({ ...agent, tier: candidate.tier! })) } : manualPlan;
  return {
    ...original,
    ...(plan ? { manualPlan: plan } : {}),
    ...(template ? { template } : {}),
    taskId,
    sessionId: '',
    requireApproval: false,
    ...(candidate.instructions !== undefined ? { instructions: candidate.instructions } : {}),
    settings: {
      ...original.settings,
      cacheModelSteps: false,
      ...(candidate.tier ? { modelTier: candidate.tier } : {}),
    },
    eval: evaluation,
  };
}
