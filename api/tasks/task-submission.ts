import { checkPlan, modelTiers, type ModelTier, type Plan } from '../../core/orchestration/plan';
import type { TaskSettings } from '../../core/orchestration/task-settings';
import type { TaskTemplate, TemplateCatalog } from '../../core/templates/template-catalog';
import type { TaskWorkflowInput } from '../../workflows/task-workflow-types';
import type { Principal } from '../../core/auth/api-keys';
import { invalid, notFound, permissionDenied } from './task-errors';
import { pathSafeIdOf } from './path-safe-ids';
import { actingUser } from './acting-user';
import type { PromptParams } from '../../core/tools/tool';
import { requestLimit } from '../../core/budget-settings';
import type { SkillCatalog } from '../../core/skills/skill-catalog';

export interface SubmissionLimits {
  maxQueryBytes: number;
  taskDefaults: TaskSettings;
  /** The tools a tenant's plans may name. */
  toolNamesFor(tenantId: string): string[];
  templates: TemplateCatalog;
  skills: SkillCatalog;
}

/** The limits a submission is checked against, from the API's dependencies. */
export function submissionLimits(deps: {
  maxQueryBytes: number;
  taskDefaults: TaskSettings;
  tools: { list(tenantId?: string): Array<{ name: string }> };
  templates: TemplateCatalog;
  skills: SkillCatalog;
}): SubmissionLimits {
  return {
    maxQueryBytes: deps.maxQueryBytes,
    taskDefaults: deps.taskDefaults,
    toolNamesFor: (tenantId) => deps.tools.list(tenantId).map((t) => t.name),
    templates: deps.templates,
    skills: deps.skills,
  };
}

/** The skill named by context.skill ("name" or "name@version"), if any; it runs with one agent. */
function namedSkill(context: Record<string, unknown>, skills: SkillCatalog, principal: Principal): TaskWorkflowInput['skill'] {
  const given = context.skill;
  if (given === undefined) return undefined;
  if (typeof given !== 'string' || given === '') throw invalid('context.skill must be a skill name (see GET /api/v1/skills), optionally name@version');
  const [name, version] = given.split('@');
  const skill = skills.find(name!, version);
  if (!skill || !skill.enabled) throw notFound(`skill ${given} not found (see GET /api/v1/skills)`);
  if (skill.requires_role && !principal.roles.includes(skill.requires_role as Principal['roles'][number]) && !principal.roles.includes('admin')) {
    throw permissionDenied(`skill ${skill.name} needs the ${skill.requires_role} role`);
  }
  return { name: skill.name, version: skill.version, instructions: skill.content };
}

/** The caller's manual_decomposition as a plan, validated like a model's. */
function manualPlan(agents: PlannedAgent[] | undefined, toolNames: string[]): Plan | undefined {
  if (!agents || agents.length === 0) return undefined;
  const check = checkPlan({ agents }, toolNames);
  if (!check.ok) throw invalid(`manual_decomposition is invalid: ${check.errors.join('; ')}`);
  return check.plan;
}

/** The template named by context.template (and context.template_version), if any. */
function namedTemplate(context: Record<string, unknown>, templates: TemplateCatalog): TaskTemplate | undefined {
  const { template: name, template_version: version } = context;
  if (name === undefined) return undefined;
  if (typeof name !== 'string' || name === '') throw invalid('context.template must be a template name (see ListTemplates)');
  if (version !== undefined && typeof version !== 'string') throw invalid('context.template_version must be a string like "1.0.0"');
  const template = templates.find(name, version);
  if (!template) throw notFound(`template ${version ? `${name}@${version}` : name} not found (see ListTemplates)`);
  return template;
}

/** The longest a task may wait for a person's decision: 30 days. */
export const maxApprovalTimeoutSeconds = 30 * 24 * 3600;

/** context.prompt_params (Shannon's name): named scalars a tool's vendor adapter may put into its requests. */
function promptParamsOf(context: Record<string, unknown>): PromptParams | undefined {
  const given = context.prompt_params;
  if (given === undefined) return undefined;
  const scalar = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
  if (typeof given !== 'object' || given === null || Array.isArray(given) || !Object.values(given).every(scalar)) {
    throw invalid('context.prompt_params must be an object of strings, numbers and booleans');
  }
  return given as PromptParams;
}

// Catches a typo (a limit in cents, say); far above any task's real spend.
const maxCostLimitUsd = 100_000;

function positiveNumber(context: Record<string, unknown>, key: string, max: number): number | undefined {
  const value = context[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max) {
    throw invalid(`context.${key} must be a positive number up to ${max}`);
  }
  return value;
}

/** Shannon's context.require_review (true) or context.review_plan ("manual"): the plan is reviewed in rounds before it runs. */
function planReviewOf(context: Record<string, unknown>): boolean {
  const { require_review: required, review_plan: mode } = context;
  if (required !== undefined && typeof required !== 'boolean') throw invalid('context.require_review must be true or false');
  if (mode !== undefined && mode !== 'manual' && mode !== 'auto') throw invalid('context.review_plan must be "manual" or "auto"');
  return required === true || mode === 'manual';
}

/** context.model_tier: "small", "medium" or "large" (Shannon's names, any case). */
function modelTierFrom(context: Record<string, unknown>): ModelTier | undefined {
  const given = context.model_tier;
  if (given === undefined) return undefined;
  const tier = typeof given === 'string' ? given.toUpperCase() : '';
  if (!(modelTiers as readonly string[]).includes(tier)) throw invalid('context.model_tier must be "small", "medium" or "large"');
  return tier as ModelTier;
}

/** A task as any door submits it, whatever its protocol; each field named as SubmitTask names it. */
export interface TaskSubmission {
  query: string;
  /** metadata.user_id: the user a service key acts for; the key's own when absent. */
  userId?: string;
  /** metadata.tenant_id: only the key's own tenant is allowed. */
  tenantId?: string;
  sessionId?: string;
  /** metadata.token_budget; 0 or absent: the deployment's. */
  tokenBudget?: number;
  /** metadata.max_agents; 0 or absent: the deployment's. */
  maxAgents?: number;
  /** Shannon's context: template, skill, model_tier, cost_limit_usd, require_review, prompt_params, ... */
  context?: Record<string, unknown>;
  autoDecompose?: boolean;
  /** manual_decomposition: the caller's own plan. */
  plannedAgents?: PlannedAgent[];
  requireApproval?: boolean;
}

/** One agent of a caller's own plan. */
export type PlannedAgent = Plan['agents'][number];

/** Validates a submission and turns it into the task workflow's input. */
export function taskInputFrom(request: TaskSubmission, caller: { taskId: string; principal: Principal }, limits: SubmissionLimits): TaskWorkflowInput {
  if (!request.query || request.query.trim() === '') throw invalid('query is required');
  const bytes = Buffer.byteLength(request.query, 'utf8');
  if (bytes > limits.maxQueryBytes) throw invalid(`query is ${bytes} bytes; the limit is ${limits.maxQueryBytes}`);
  const { principal } = caller;
  if (request.tenantId && request.tenantId !== principal.tenantId) {
    throw permissionDenied(`metadata.tenant_id ${request.tenantId} is not the tenant of your API key`);
  }
  const budget = request.tokenBudget ?? 0;
  if (!Number.isFinite(budget) || budget < 0) throw invalid('metadata.token_budget must be >= 0');
  const maxAgents = request.maxAgents ?? 0;
  if (maxAgents < 0) throw invalid('metadata.max_agents must be >= 0');
  const context = request.context ?? {};
  const approvalTimeoutSeconds = positiveNumber(context, 'approval_timeout_seconds', maxApprovalTimeoutSeconds);
  const maxIterations = positiveNumber(context, 'max_iterations', limits.taskDefaults.maxIterations * 10);
  const promptParams = promptParamsOf(context);
  const modelTier = modelTierFrom(context);
  const costLimitUsd = positiveNumber(context, 'cost_limit_usd', maxCostLimitUsd);
  const enableCaching = context.enable_caching;
  if (enableCaching !== undefined && typeof enableCaching !== 'boolean') throw invalid('context.enable_caching must be true or false');
  const manual = manualPlan(request.plannedAgents, limits.toolNamesFor(principal.tenantId));
  const template = namedTemplate(context, limits.templates);
  const fromTemplate = template?.plan;
  if (manual && fromTemplate) throw invalid('give either manual_decomposition or context.template, not both');
  const plan = manual ?? fromTemplate;
  const skill = namedSkill(context, limits.skills, principal);
  const reviewPlan = planReviewOf(context);
  if (reviewPlan && skill) throw invalid('a skill runs with one agent: it has no plan to review');
  if (skill && (plan || request.autoDecompose)) throw invalid('a skill runs with one agent: submit it without a plan, a template or decomposition');
  const defaults = limits.taskDefaults;
  return {
    taskId: caller.taskId,
    tenantId: principal.tenantId,
    ...actingUser(principal, request.userId, 'metadata.user_id'),
    roles: [...principal.roles],
    sessionId: pathSafeIdOf(request.sessionId ?? '', 'metadata.session_id'),
    query: request.query,
    autoDecompose: request.autoDecompose ?? false,
    ...(plan ? { manualPlan: plan } : {}),
    ...(template ? { template: template.key } : {}),
    requireApproval: request.requireApproval ?? false,
    ...(reviewPlan ? { reviewPlan } : {}),
    ...(skill ? { skill } : {}),
    settings: {
      ...defaults,
      maxAgents: maxAgents > 0 ? maxAgents : defaults.maxAgents,
      taskTokenBudget: requestLimit(defaults.taskTokenBudget, Math.floor(budget)),
      taskCostLimitUsd: requestLimit(defaults.taskCostLimitUsd, costLimitUsd ?? 0),
      ...(approvalTimeoutSeconds ? { approvalTimeoutMs: Math.round(approvalTimeoutSeconds * 1000) } : {}),
      ...(maxIterations ? { maxIterations: Math.floor(maxIterations) } : {}),
      ...(enableCaching !== undefined ? { cacheModelSteps: enableCaching } : {}),
      ...(promptParams ? { promptParams } : {}),
      ...(modelTier ? { modelTier } : {}),
    },
  };
}
