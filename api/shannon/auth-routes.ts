import { apiKeysAnswer, callerAnswer, newApiKeyAnswer, newApiKeyBody, revokedApiKeyAnswer } from './shannon-schemas';
import { createApiKey, isRole, type ApiKeyInfo, type Principal, type Role } from '../../core/auth/api-keys';
import { authorizationOf } from '../http/credentials';
import { listApiKeys, revokeApiKey } from '../../core/auth/key-management';
import { hasRole } from '../tasks/auth';
import { notFound, permissionDenied } from '../tasks/task-errors';
import { badRequest, type ShannonRoute } from './shannon-route';
import { objectOf } from './route-adapter';

// Who the caller is (GET /api/v1/auth/me) and the caller's API keys over REST, as Shannon's gateway
// serves them: everyone lists, creates and revokes their own keys; a tenant's admin also those of
// the tenant's other users. A key is never more than its creator: it holds only roles they hold.

const maxNameLength = 100;
const maxDescriptionLength = 500;
const maxExpiryDays = 3650;

function keyJson(key: ApiKeyInfo) {
  return {
    id: key.keyId,
    name: key.name,
    key_prefix: `weft_${key.keyId}`,
    ...(key.description !== undefined ? { description: key.description } : {}),
    user_id: key.userId,
    roles: key.roles,
    created_at: key.createdAt.toISOString(),
    ...(key.expiresAt ? { expires_at: key.expiresAt.toISOString() } : {}),
    is_active: !key.revokedAt && (!key.expiresAt || key.expiresAt > new Date()),
  };
}

/** The keys the caller may manage: their own, or the tenant's for its admin. */
async function manageableKeys(pool: Parameters<typeof listApiKeys>[0], principal: Principal): Promise<ApiKeyInfo[]> {
  const keys = await listApiKeys(pool, { tenantId: principal.tenantId });
  return hasRole(principal, 'admin') ? keys : keys.filter((key) => key.userId === principal.userId);
}

function textField(request: Record<string, unknown>, name: string, maxLength: number): string | undefined {
  const value = request[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > maxLength) throw badRequest(`${name} must be a string of at most ${maxLength} characters`);
  return value;
}

/** The new key's user, roles and expiry from the body, each refused when the caller may not give it. */
function newKeyOf(body: unknown, principal: Principal) {
  const request = objectOf(body ?? {});
  if (!request) throw badRequest('the request body must be a JSON object');
  const unknown = Object.keys(request).find((name) => !['name', 'description', 'roles', 'user_id', 'expires_in_days'].includes(name));
  if (unknown) throw badRequest(`unknown field ${unknown}`);
  const name = textField(request, 'name', maxNameLength);
  if (!name || name.trim() === '') throw badRequest('name is required');
  const description = textField(request, 'description', maxDescriptionLength);
  const userId = textField(request, 'user_id', 128) ?? principal.userId;
  if (userId !== principal.userId && !hasRole(principal, 'admin')) throw permissionDenied("only the tenant's admin creates keys for another user");
  const given = request.roles ?? principal.roles;
  if (!Array.isArray(given) || !given.every((role): role is Role => typeof role === 'string' && isRole(role)))
    throw badRequest('roles must be a list of approver, act_for_users, admin, platform_admin');
  const beyond = given.find((role) => !hasRole(principal, role));
  if (beyond) throw permissionDenied(`you cannot give a key the role ${beyond}, which you do not hold`);
  const days = request.expires_in_days;
  if (days !== undefined && (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > maxExpiryDays))
    throw badRequest(`expires_in_days must be an integer from 1 to ${maxExpiryDays}`);
  return {
    principal: { tenantId: principal.tenantId, userId, roles: [...new Set(given)] },
    options: {
      name,
      ...(description !== undefined ? { description } : {}),
      ...(days !== undefined ? { expiresAt: new Date(Date.now() + days * 86_400_000) } : {}),
    },
  };
}

export const authRoutes: ShannonRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/auth/me',
    answer: callerAnswer,
    summary: "The caller: user, tenant, roles, the key in use and its rate limit's state",
    tag: 'auth',
    async handle({ principal, headers }, deps) {
      const limit = await deps.auth.rateLimitOf(authorizationOf(headers));
      const minute = limit ? { limit: limit.limit, remaining: limit.remaining, reset_seconds: limit.resetSeconds } : null;
      return {
        body: {
          user_id: principal.userId,
          tenant_id: principal.tenantId,
          username: principal.userId,
          email: '',
          roles: principal.roles,
          ...(principal.keyId ? { key_id: principal.keyId } : {}),
          tier: 'weft',
          quotas: { rate_limit_minute: limit?.limit ?? null },
          rate_limits: { minute },
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/auth/api-keys',
    answer: apiKeysAnswer,
    summary: "The caller's API keys (a tenant admin's: the tenant's), without their secrets",
    tag: 'auth',
    async handle({ principal }, deps) {
      const keys = (await manageableKeys(deps.pool, principal)).map(keyJson);
      return { body: { keys, total: keys.length } };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/auth/api-keys',
    body: newApiKeyBody,
    answer: newApiKeyAnswer,
    answerStatus: 201,
    summary: 'Creates a key {"name", "description", "roles", "user_id" (admin), "expires_in_days"}; 201 with the key, shown once',
    tag: 'auth',
    async handle({ principal, body }, deps) {
      const wanted = newKeyOf(body, principal);
      const apiKey = await createApiKey(deps.pool, wanted.principal, wanted.options);
      const keyId = apiKey.split('_')[1]!;
      return {
        status: 201,
        body: {
          id: keyId,
          name: wanted.options.name,
          api_key: apiKey,
          key_prefix: `weft_${keyId}`,
          user_id: wanted.principal.userId,
          roles: wanted.principal.roles,
          created_at: new Date().toISOString(),
          warning: 'Store this API key securely. It will not be shown again.',
        },
      };
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/auth/api-keys/:key_id',
    answer: revokedApiKeyAnswer,
    summary: "Revokes one of the caller's keys (a tenant admin: any of the tenant's); another tenant's key is not found",
    tag: 'auth',
    async handle({ principal, params }, deps) {
      const key = (await manageableKeys(deps.pool, principal)).find((k) => k.keyId === params.key_id && !k.revokedAt);
      if (!key) throw notFound(`API key ${params.key_id} not found or already revoked`);
      await revokeApiKey(deps.pool, key.keyId);
      return { body: { success: true, message: 'API key revoked', id: key.keyId } };
    },
  },
];
