/** Longest id-like field accepted (user, session, task, message, cache and similar ids), in bytes. */
export const maxIdBytes = 256;

// Field names that hold an id: `id`, `*_id`, `*_key` (cache_key, idempotency keys) and `*_ids`.
const idField = /^(id|.+_id|.+_key|.+_ids)$/;

/**
 * The first id-like string of a decoded request, at any depth, that is over the id limit, described
 * for the caller; ids end up in indexes, paths and headers, where a huge one costs everyone. Struct
 * values (user data) are not ids and are left to the handler's own limits.
 */
export function oversizedIdIn(message: unknown, path = ''): string | undefined {
  if (Array.isArray(message)) {
    for (const [index, item] of message.entries()) {
      const found = oversizedIdIn(item, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof message !== 'object' || message === null || Buffer.isBuffer(message)) return undefined;
  for (const [name, value] of Object.entries(message)) {
    const field = path ? `${path}.${name}` : name;
    const found = idField.test(name) ? oversizedIds(value, field) : name === 'fields' ? undefined : oversizedIdIn(value, field);
    if (found) return found;
  }
  return undefined;
}

function oversizedIds(value: unknown, field: string): string | undefined {
  const ids = Array.isArray(value) ? value : [value];
  for (const [index, id] of ids.entries()) {
    const bytes = typeof id === 'string' ? Buffer.byteLength(id, 'utf8') : 0;
    if (bytes > maxIdBytes) return `${Array.isArray(value) ? `${field}[${index}]` : field} is ${bytes} bytes; the limit is ${maxIdBytes}`;
  }
  return undefined;
}
