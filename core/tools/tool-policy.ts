import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

// Who may use which tool, declared in a YAML file (WEFT_TOOL_POLICY). Rules are read in order and
// the first that matches a call decides; a rule matches when one of its tool patterns ("*" matches
// any run of characters) names the tool and the caller fits every selector it gives (tenants, users,
// and roles, of which the caller needs one). Without a match, `default` decides.

const ruleSchema = z.strictObject({
  tools: z.array(z.string().min(1)).min(1),
  effect: z.enum(['allow', 'deny']),
  tenants: z.array(z.string().min(1)).optional(),
  users: z.array(z.string().min(1)).optional(),
  roles: z.array(z.string().min(1)).optional(),
});
const policySchema = z.strictObject({ default: z.enum(['allow', 'deny']).default('allow'), rules: z.array(ruleSchema).default([]) });

export interface Caller {
  tenantId: string;
  userId: string;
  roles: readonly string[];
}

export interface ToolPolicy {
  /** Why the caller may not use the tool, or undefined when they may. */
  refusal(tool: string, caller: Caller): string | undefined;
}

export const allowEveryTool: ToolPolicy = { refusal: () => undefined };

const patternOf = (glob: string) =>
  new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

export function toolPolicy(document: unknown, source = 'tool policy'): ToolPolicy {
  const parsed = policySchema.safeParse(document ?? {});
  if (!parsed.success) throw new Error(`${source} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  const rules = parsed.data.rules.map((rule, index) => ({ ...rule, index, patterns: rule.tools.map(patternOf) }));
  const fallback = parsed.data.default;
  return {
    refusal(tool, caller) {
      const rule = rules.find(
        (r) =>
          r.patterns.some((pattern) => pattern.test(tool)) &&
          (!r.tenants || r.tenants.includes(caller.tenantId)) &&
          (!r.users || r.users.includes(caller.userId)) &&
          (!r.roles || r.roles.some((role) => caller.roles.includes(role))),
      );
      const effect = rule?.effect ?? fallback;
      if (effect === 'allow') return undefined;
      const why = rule ? `rule ${rule.index + 1} of the tool policy` : "the tool policy's default";
      return `${caller.userId || 'this caller'} (tenant ${caller.tenantId}) may not use ${tool}: ${why} denies it`;
    },
  };
}

export function loadToolPolicy(file: string | undefined): ToolPolicy {
  return file ? toolPolicy(parseYaml(readFileSync(file, 'utf8')), file) : allowEveryTool;
}
