import type { Principal } from '../../core/auth/api-keys';
import { hasRole } from './auth';
import { permissionDenied } from './task-errors';

export interface ActingUser {
  /** The user the work is for: the key's own user unless the request names another. */
  userId: string;
  /** The key's user, when it acts for another user (recorded with the work). */
  submittedBy?: string;
}

/**
 * Who a request acts for. A request may name another user of the key's tenant only with the
 * act_for_users role: otherwise a caller could take on that user's credentials, policies and cache.
 */
export function actingUser(principal: Principal, requestedUserId: string | undefined, field: string): ActingUser {
  // Its length is checked with every id of the request (field-limits.ts), before any handler.
  const requested = requestedUserId ?? '';
  if (!requested || requested === principal.userId) return { userId: principal.userId };
  if (!hasRole(principal, 'act_for_users')) {
    throw permissionDenied(`${field} ${requested} is not the user of your API key; acting for another user needs the act_for_users role`);
  }
  return { userId: requested, submittedBy: principal.userId };
}
