import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

// Skills: instructions kept as SKILL.md files (YAML front matter, then Markdown), one folder per
// skill, each `*.md` file in it one version. A task that names a skill runs its one agent with the
// skill's text as its system prompt; Shannon's /api/v1/skills lists and shows them.

const frontMatterSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1-64 lowercase letters, digits, "_" or "-"'),
  version: z.string().regex(/^\d+\.\d+\.\d+$/, 'must be a semantic version like 1.0.0'),
  description: z.string().default(''),
  category: z.string().default('general'),
  author: z.string().optional(),
  requires_tools: z.array(z.string()).default([]),
  requires_role: z.string().optional(),
  dangerous: z.boolean().default(false),
  enabled: z.boolean().default(true),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export type Skill = z.infer<typeof frontMatterSchema> & { content: string };

export interface SkillCatalog {
  /** The newest version of every skill. */
  list(): Skill[];
  /** The newest version of `name`, or exactly `version`. */
  find(name: string, version?: string): Skill | undefined;
  /** Every version of `name`, newest first (empty when there is no such skill). */
  versions(name: string): Skill[];
}

const newestFirst = (a: Skill, b: Skill) => {
  const [x, y] = [a.version.split('.').map(Number), b.version.split('.').map(Number)];
  return y[0]! - x[0]! || y[1]! - x[1]! || y[2]! - x[2]!;
};

function parseSkillFile(file: string): Skill {
  const text = readFileSync(file, 'utf8');
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`skill ${file}: starts with no front matter (--- name, version, description ---)`);
  const parsed = frontMatterSchema.safeParse(parseYaml(match[1]!));
  if (!parsed.success) throw new Error(`skill ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return { ...parsed.data, content: match[2]!.trim() };
}

/** Loads `dir/<skill>/*.md`; a broken file, a folder whose files name another skill, or an unknown tool stops start-up. */
export function loadSkillCatalog(dir: string, knownTools: readonly string[]): SkillCatalog {
  const byName = new Map<string, Skill[]>();
  for (const folder of readdirSync(dir).sort()) {
    const folderPath = path.join(dir, folder);
    if (!statSync(folderPath).isDirectory()) continue;
    for (const file of readdirSync(folderPath)
      .filter((f) => f.endsWith('.md'))
      .sort()) {
      const skill = parseSkillFile(path.join(folderPath, file));
      if (skill.name !== folder) throw new Error(`skill ${folder}/${file}: names skill ${skill.name}; keep each skill in the folder of its name`);
      const unknown = skill.requires_tools.filter((tool) => !knownTools.includes(tool));
      if (unknown.length > 0) throw new Error(`skill ${folder}/${file}: unknown tools ${unknown.join(', ')}`);
      const versions = byName.get(skill.name) ?? [];
      if (versions.some((v) => v.version === skill.version)) throw new Error(`skill ${skill.name}@${skill.version} is defined twice in ${dir}`);
      byName.set(skill.name, [...versions, skill].sort(newestFirst));
    }
  }
  return {
    list: () => [...byName.values()].map((versions) => versions[0]!),
    find: (name, version) => byName.get(name)?.find((skill) => version === undefined || skill.version === version),
    versions: (name) => byName.get(name) ?? [],
  };
}
