import { loadAgentCatalog } from './agents/agent-catalog';
import type { CatalogSettings } from './catalog-settings';
import { loadOpenAiModelCatalog } from './openai/model-catalog';
import { loadSkillCatalog } from './skills/skill-catalog';
import { loadTemplateCatalog } from './templates/template-catalog';

/** The kinds of work a caller may name (templates, skills, named agents, OpenAI models), each checked against the registered tools. */
export function loadCatalogs(settings: CatalogSettings, toolNames: readonly string[]) {
  return {
    templates: loadTemplateCatalog(settings.templatesDir, toolNames),
    skills: loadSkillCatalog(settings.skillsDir, toolNames),
    agents: loadAgentCatalog(settings.agentsDir, toolNames),
    openAiModels: loadOpenAiModelCatalog(settings.openAiModelsFile, toolNames),
  };
}
