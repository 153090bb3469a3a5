import { readFileSync } from 'node:fs';

/** A secret by the name of the environment variable that holds it; undefined when it is not set. */
export type SecretSource = (name: string) => string | undefined;

/**
 * Secrets from a captured environment: the variable itself, or the file that `<NAME>_FILE` points
 * to (mounted secrets), trailing newline removed. core/config.ts builds the process's one source;
 * tests build their own from a plain object.
 */
export function secretsFrom(env: Readonly<Record<string, string | undefined>>): SecretSource {
  return (name) => {
    const value = env[name];
    if (value) return value;
    const file = env[`${name}_FILE`];
    return file ? readFileSync(file, 'utf8').replace(/\r?\n$/, '') : undefined;
  };
}
