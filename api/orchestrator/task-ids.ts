import { randomUUID } from 'node:crypto';
import { invalidArgument } from '../grpc/grpc-errors';

const taskIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const isValidTaskId = (id: string) => taskIdPattern.test(id);

/** The caller's task id (validated) or a new one. */
export function taskIdFor(requested: string): string {
  if (!requested) return `task-${randomUUID()}`;
  if (!taskIdPattern.test(requested)) {
    throw invalidArgument('metadata.task_id must be 1-128 characters of letters, digits, ".", "_", ":" or "-"');
  }
  return requested;
}
