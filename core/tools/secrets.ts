import { readFileSync } from 'node:fs';

/**
 * A secret by the name of its environment variable: the variable itself, or the file that
 * `<NAME>_FILE` points to (mounted secrets), trailing newline removed. Undefined when neither is set.
 */
export function secretFrom(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (value) return value;
  const file = env[`${name}_FILE`];
  return file ? readFileSync(file, 'utf8').replace(/\r?\n$/, '') : undefined;
}
