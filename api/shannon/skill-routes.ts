import { skillAnswer, skillVersionsAnswer, skillsAnswer } from './shannon-schemas';
import type { Skill } from '../../core/skills/skill-catalog';
import { notFound } from '../tasks/task-errors';
import type { ShannonRoute } from './shannon-route';

// Shannon's skills (GET /api/v1/skills, /{name}, /{name}/versions): SKILL.md files under skills/.
// A task names one with Shannon's `skill` field (or context.skill, "name@version" to pin one).

function skillSummary(skill: Skill) {
  return {
    name: skill.name,
    version: skill.version,
    category: skill.category,
    description: skill.description,
    requires_tools: skill.requires_tools,
    dangerous: skill.dangerous,
    enabled: skill.enabled,
  };
}

export const skillRoutes: ShannonRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/skills',
    answer: skillsAnswer,
    summary: 'The skills a task can name (newest version of each; category: only one category)',
    tag: 'skills',
    query: ['category'],
    async handle({ query }, deps) {
      const category = typeof query.category === 'string' && query.category ? query.category : undefined;
      const skills = deps.skills.list().filter((skill) => !category || skill.category === category);
      return { body: { skills: skills.map(skillSummary), count: skills.length } };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/skills/:name',
    answer: skillAnswer,
    summary: "One skill's newest version with its instructions (content)",
    tag: 'skills',
    async handle({ params }, deps) {
      const skill = deps.skills.find(params.name!);
      if (!skill) throw notFound(`skill ${params.name} not found`);
      return {
        body: {
          skill: {
            ...skillSummary(skill),
            ...(skill.author ? { author: skill.author } : {}),
            ...(skill.requires_role ? { requires_role: skill.requires_role } : {}),
            content: skill.content,
            metadata: skill.metadata ?? {},
          },
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/skills/:name/versions',
    answer: skillVersionsAnswer,
    summary: 'Every version of a skill, newest first',
    tag: 'skills',
    async handle({ params }, deps) {
      const versions = deps.skills.versions(params.name!);
      if (versions.length === 0) throw notFound(`skill ${params.name} not found`);
      return { body: { name: params.name!, versions: versions.map(skillSummary) } };
    },
  },
];
