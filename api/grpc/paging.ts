import { invalid } from '../tasks/task-errors';

const defaultLimit = 20;
const maxLimit = 100;

/** A list request's limit and offset, validated; a limit of 0 means the default. */
export function pageOf(request: { limit: number; offset: number }): { limit: number; offset: number } {
  if (request.limit < 0) throw invalid('limit must be >= 0');
  if (request.limit > maxLimit) throw invalid(`limit must be <= ${maxLimit}`);
  if (request.offset < 0) throw invalid('offset must be >= 0');
  return { limit: request.limit || defaultLimit, offset: request.offset };
}
