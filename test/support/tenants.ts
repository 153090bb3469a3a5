import type { Principal } from '../../core/auth/api-keys';
import type { ServiceClient, ServiceName } from '../../protos/clients';
import type { TestStack } from './stack';

// The cast of every isolation test: two tenants with two users each. Keys carry the approver role
// only, so nothing here may act for another user or for another tenant.

export interface TenantUser {
  principal: Principal;
  apiKey: string;
  client<S extends ServiceName>(service: S): ServiceClient<S>;
}

export interface Tenants {
  a: [TenantUser, TenantUser];
  b: [TenantUser, TenantUser];
}

export async function twoTenantsTwoUsersEach(stack: TestStack): Promise<Tenants> {
  const run = Math.random().toString(36).slice(2, 8);
  const user = async (tenant: string, name: string): Promise<TenantUser> => {
    const principal: Principal = { tenantId: `${tenant}-${run}`, userId: name, roles: ['approver'] };
    const apiKey = await stack.newApiKey(principal);
    return { principal, apiKey, client: (service) => stack.client(service, apiKey) };
  };
  return {
    a: [await user('tenant-a', 'alice'), await user('tenant-a', 'arthur')],
    b: [await user('tenant-b', 'bob'), await user('tenant-b', 'bella')],
  };
}
