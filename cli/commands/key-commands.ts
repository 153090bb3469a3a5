import type { Command } from 'commander';
import { createApiKey, isRole, roles } from '../../core/auth/api-keys';
import { listApiKeys, revokeApiKey, rotateApiKey } from '../../core/auth/key-management';
import type { CliContext } from '../cli-context';
import { withDatabase } from '../operator-deps';
import { positiveNumberOption } from '../options';

export function addKeyCommands(program: Command, ctx: CliContext): void {
  const keys = program.command('keys').description('manage API keys (talks to the database named by DATABASE_URL)');

  keys
    .command('create')
    .description('create an API key; it is shown once')
    .requiredOption('--tenant <id>', 'tenant the key belongs to')
    .requiredOption('--user <id>', 'user the key acts as')
    .option('--role <role...>', `any of ${roles.join(', ')}`, [])
    .option('--expires-in-days <days>', 'the key stops working after this many days', positiveNumberOption)
    .option('--name <name>', 'what the key is for, as `keys list` shows it', '')
    .action(async (options: { tenant: string; user: string; role: string[]; expiresInDays?: number; name: string }) => {
      const unknown = options.role.filter((role) => !isRole(role));
      if (unknown.length > 0) throw new Error(`unknown role ${unknown.join(', ')}: roles are ${roles.join(', ')}`);
      const expiresAt = options.expiresInDays ? new Date(Date.now() + options.expiresInDays * 86_400_000) : undefined;
      const principal = { tenantId: options.tenant, userId: options.user, roles: options.role.filter(isRole) };
      const key = await withDatabase((pool) => createApiKey(pool, principal, { name: options.name, ...(expiresAt ? { expiresAt } : {}) }));
      ctx.output().data({ key }, ({ key }) => key);
    });

  keys
    .command('list')
    .description('list keys (never their secrets)')
    .option('--tenant <id>', "only this tenant's keys")
    .action(async (options: { tenant?: string }) => {
      const found = await withDatabase((pool) => listApiKeys(pool, options.tenant ? { tenantId: options.tenant } : {}));
      ctx.output().data(found, (list) =>
        list.map((key) => {
          const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : key.expiresAt ? `expires ${key.expiresAt.toISOString()}` : 'active';
          return [key.keyId, key.tenantId, key.userId, key.roles.join(',') || '-', state, key.name].join('\t');
        }),
      );
    });

  keys
    .command('revoke')
    .description('revoke a key now: every API process refuses it at once and ends its open streams')
    .argument('<key-id>', 'the id between "weft_" and the secret, as `keys list` shows it')
    .action(async (keyId: string) => {
      await withDatabase((pool) => revokeApiKey(pool, keyId));
      ctx.output().data({ revoked: keyId }, () => `revoked ${keyId}`);
    });

  keys
    .command('rotate')
    .description('a new key for the same tenant, user and roles; the old one is revoked (or expires after --grace-seconds)')
    .argument('<key-id>', 'the key to replace')
    .option('--grace-seconds <seconds>', 'keep the old key working this long', positiveNumberOption, 0)
    .action(async (keyId: string, options: { graceSeconds: number }) => {
      const key = await withDatabase((pool) => rotateApiKey(pool, keyId, options.graceSeconds));
      ctx.output().data({ key }, ({ key }) => key);
    });
}
