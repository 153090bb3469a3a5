import path from 'node:path';
import { z } from 'zod';

// Where the files that name kinds of work live (read with the rest in core/config.ts): task
// templates, named agents, skills, OpenAI model names and eval sets, each checked against the registered tools at start.

const repoFolder = (name: string) => path.resolve(__dirname, '..', name);

export const catalogEnvSchema = z.object({
  WEFT_TEMPLATES_DIR: z
    .string()
    .default(repoFolder('templates'))
    .describe("Task templates (YAML) that ListTemplates lists and a submit's `context.template` names."),
  WEFT_AGENTS_DIR: z.string().default(repoFolder('agents')).describe('Named agents (YAML) that `/api/v1/agents` lists and runs.'),
  WEFT_SKILLS_DIR: z
    .string()
    .default(repoFolder('skills'))
    .describe('Skills (`<name>/*.md` with front matter) that a task may name (`skill`, `context.skill`).'),
  WEFT_OPENAI_MODELS: z.string().default(repoFolder('openai-models.yaml')).describe('The model names OpenAI clients use (YAML), each a shape of task.'),
  WEFT_EVALS_DIR: z.string().default(repoFolder('evals')).describe('Eval sets (YAML) that `weft eval --baseline <set>` runs.'),
});

export interface CatalogSettings {
  /** Task templates (YAML) that ListTemplates lists and SubmitTask's context.template names. */
  templatesDir: string;
  /** Named agents (YAML), listed and run by Shannon's /api/v1/agents. */
  agentsDir: string;
  /** Skills (<name>/SKILL.md), listed by /api/v1/skills; a task may name one (context.skill). */
  skillsDir: string;
  /** The models OpenAI clients name (YAML): each a shape of task. */
  openAiModelsFile: string;
  /** Eval sets (YAML): cases with expectations that `weft eval --baseline <set>` runs again. */
  evalsDir: string;
}

export function catalogSettingsOf(e: z.infer<typeof catalogEnvSchema>): CatalogSettings {
  return {
    templatesDir: e.WEFT_TEMPLATES_DIR,
    agentsDir: e.WEFT_AGENTS_DIR,
    skillsDir: e.WEFT_SKILLS_DIR,
    openAiModelsFile: e.WEFT_OPENAI_MODELS,
    evalsDir: e.WEFT_EVALS_DIR,
  };
}
