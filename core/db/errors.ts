/**
 * Postgres "data exception" (SQLSTATE class 22): a value it can never store, such as a NUL character,
 * invalid UTF-8 or an out-of-range number or date. Retrying cannot help.
 */
export function isUnstorableValueError(err: unknown): err is Error {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('22');
}
