import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workspaceFileTools } from '../../core/tools/builtin/workspace-files';
import { createToolRegistry } from '../../core/tools/registry';

// A session id becomes a folder name: hostile ids must never name a folder outside the tenant's own.

const root = mkdtempSync(path.join(tmpdir(), 'weft-workspaces-'));
const registry = createToolRegistry(workspaceFileTools(root));
const as = (tenantId: string, sessionId: string) => ({ tenantId, userId: 'u', roles: [], sessionId, taskId: 'task' });

it('keeps "." and ".." session ids inside the tenant\'s own folder', async () => {
  expect(await registry.execute('file_write', { path: 'note.txt', content: 'mine' }, as('acme', 'shared'))).toMatchObject({ ok: true });
  for (const hostile of ['..', '.', '...']) {
    expect(await registry.execute('file_write', { path: 'x.txt', content: 'escape' }, as('acme', hostile))).toMatchObject({ ok: true });
    // Reading the other session's file through the hostile id finds nothing.
    expect(await registry.execute('file_read', { path: 'shared/note.txt' }, as('acme', hostile))).toMatchObject({ ok: false });
  }
  expect(readdirSync(root)).toEqual(['acme']);
  expect(readdirSync(path.join(root, 'acme')).sort()).toEqual(['_', 'shared']);
  expect(existsSync(path.join(root, 'x.txt'))).toBe(false);
  expect(existsSync(path.join(root, 'acme', 'x.txt'))).toBe(false);
});
