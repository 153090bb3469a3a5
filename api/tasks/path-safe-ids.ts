import { invalid } from './task-errors';

// Ids that become folder names (a session's workspace): letters, digits and ". _ : -", starting with
// a letter or digit, so no id is a dot segment or holds a path separator.
const pathSafeId = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const isPathSafeId = (value: string) => pathSafeId.test(value);

/** An id that names a folder, refused unless it is path-safe ('' stays '': no id given). */
export function pathSafeIdOf(value: string, field: string): string {
  if (value && !isPathSafeId(value)) throw invalid(`${field} must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit`);
  return value;
}
