import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { SecretSource } from '../secrets';
import { ToolError } from './tool';
import { checkSourceDestinations, type SourceAllowlists, type StoredToolSource } from './tool-source-store';

// What a source registered at runtime (by a tenant's admin, over REST) may ask of the processes
// that load it: hosts its kind's allowlist admits, a spec file only inside the configured folder,
// and secrets only under the configured prefix, so no source can read the model provider's key or
// any file of the server. Checked when the source is registered and again when it is loaded.

export interface RuntimeSourceRules {
  allowlists: SourceAllowlists;
  /** The folder runtime sources' spec_file must be in (WEFT_TOOL_SPEC_DIR); absent: spec_file is refused. */
  specDir?: string;
  /** The prefix every secret a runtime source names must have (WEFT_TOOL_SECRET_PREFIX). */
  secretPrefix: string;
}

/** The environment names a source reads its secrets from. */
function secretNamesOf(source: StoredToolSource): string[] {
  if (source.kind === 'mcp') return source.config.bearer_token_env ? [source.config.bearer_token_env] : [];
  const auth = source.config.auth;
  if (!auth) return [];
  if (auth.type === 'bearer') return [auth.token_env];
  if (auth.type === 'api_key') return [auth.key_env];
  return [auth.username_env, auth.password_env];
}

/** The spec file a runtime source may read: inside the spec folder once links are resolved. */
export function confinedSpecFile(file: string, specDir: string | undefined): string {
  if (!specDir)
    throw new ToolError('validation', 'spec_file is not allowed for sources registered at runtime (no WEFT_TOOL_SPEC_DIR is configured); use spec_url');
  const folder = realpathSync(specDir);
  let resolved: string;
  try {
    resolved = realpathSync(path.resolve(folder, file));
  } catch {
    throw new ToolError('validation', `spec_file ${file} does not exist in the spec folder`);
  }
  if (resolved !== folder && !resolved.startsWith(`${folder}${path.sep}`)) throw new ToolError('validation', `spec_file ${file} is outside the spec folder`);
  return resolved;
}

/** Refuses a runtime source that breaks a rule, with a message that names the rule. */
export async function checkRuntimeSource(source: StoredToolSource, rules: RuntimeSourceRules): Promise<void> {
  for (const name of secretNamesOf(source)) {
    if (!name.startsWith(rules.secretPrefix))
      throw new ToolError('validation', `secret ${name} is not allowed: secrets of runtime sources must be named ${rules.secretPrefix}*`);
  }
  if (source.kind === 'openapi' && source.config.spec_file) confinedSpecFile(source.config.spec_file, rules.specDir);
  await checkSourceDestinations(source, rules.allowlists);
}

/** The secrets a runtime source may read: only names under the prefix, whatever its stored config says. */
export function prefixedSecrets(secrets: SecretSource, prefix: string): SecretSource {
  return (name) => (name.startsWith(prefix) ? secrets(name) : undefined);
}
