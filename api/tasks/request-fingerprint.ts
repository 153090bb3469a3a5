import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/**
 * What makes two submissions of one task id the same request: the caller's user and everything it
 * asked for, task id aside, in a canonical form (map keys sorted, so clients that order them
 * differently agree). A retried submit matches; the same id with another request does not.
 */
export function requestFingerprint(request: { metadata?: { task_id?: string } | null }, userId: string): string {
  const asked = { ...request, metadata: request.metadata ? { ...request.metadata, task_id: '' } : request.metadata };
  return createHash('sha256')
    .update(stringify({ userId, asked }) ?? '')
    .digest('hex');
}
