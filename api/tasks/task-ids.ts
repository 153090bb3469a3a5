import { createHash, randomUUID } from 'node:crypto';
import { invalid } from './task-errors';
import { isPathSafeId } from './path-safe-ids';

// Task ids. A caller may name its task (metadata.task_id); the name is its tenant's own: the task's
// id is derived from the tenant and the name, so the same name in two tenants is two tasks, and
// submitting a name tells nothing about other tenants. Lookups accept the id or the name.

/** Task ids and names are path-safe ids: they name workflows, records and folders. */
export const isValidTaskId = isPathSafeId;

/** A task id only this tenant's `parts` give: the same parts always give the same id. */
export function tenantScopedTaskId(tenantId: string, ...parts: string[]): string {
  return `task-${createHash('sha256')
    .update([tenantId, ...parts].join('\n'))
    .digest('hex')
    .slice(0, 32)}`;
}

/** The id of the tenant's task named `name`. */
export const tenantTaskId = (tenantId: string, name: string) => tenantScopedTaskId(tenantId, 'task_id', name);

/** The id of a new task: from the caller's (validated) name, or new. */
export function taskIdFor(requestedName: string, tenantId: string): string {
  if (!requestedName) return `task-${randomUUID()}`;
  if (!isValidTaskId(requestedName)) {
    throw invalid('metadata.task_id must be 1-128 characters of letters, digits, ".", "_", ":" or "-"');
  }
  return tenantTaskId(tenantId, requestedName);
}

/** The task ids a caller's reference may mean: the task's id itself, or the name it gave the task. */
export function taskIdsReferencedBy(reference: string, tenantId: string): string[] {
  return isValidTaskId(reference) ? [reference, tenantTaskId(tenantId, reference)] : [];
}
