import { lstat, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '../tool';

// A session's workspace: <root>/<tenant>/<session or task>/. The file tools read and write it; the
// Python sandbox gets its files, read-only, under /data.

/** An id as one folder name: other characters become "_", and "." or ".." can never be one. */
const safeSegment = (value: string) => {
  const segment = value.replace(/[^A-Za-z0-9._-]/g, '_');
  return segment === '' || /^\.+$/.test(segment) ? '_' : segment;
};

/**
 * A user's memory: files that outlive sessions, <root>/<tenant>/@memory/<user>/. No session's folder
 * can be named "@memory" (safeSegment turns "@" into "_").
 */
export function memoryDirOf(root: string, owner: { tenantId: string; userId: string }): string {
  return path.join(root, safeSegment(owner.tenantId), '@memory', safeSegment(owner.userId));
}

export function workspaceDirOf(root: string, context: Pick<ToolContext, 'tenantId' | 'sessionId' | 'taskId'>): string {
  return path.join(root, safeSegment(context.tenantId), safeSegment(context.sessionId || context.taskId));
}

/**
 * The workspace's regular files (symlinks are skipped, so nothing outside it is read), smallest
 * first, as many as fit in `limitBytes`; the ones that did not fit are named.
 */
export async function workspaceDataFiles(dir: string, limitBytes: number): Promise<{ files: Array<{ path: string; content: Buffer }>; omitted: string[] }> {
  const found: Array<{ path: string; size: number }> = [];
  const walk = async (relative: string): Promise<void> => {
    // A session that never wrote a file has no workspace yet; any other failure is the caller's.
    const entries = await readdir(path.join(dir, relative), { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    for (const entry of entries) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) found.push({ path: child, size: (await lstat(path.join(dir, child))).size });
    }
  };
  await walk('');
  found.sort((a, b) => a.size - b.size || a.path.localeCompare(b.path));
  const files: Array<{ path: string; content: Buffer }> = [];
  const omitted: string[] = [];
  let total = 0;
  for (const file of found) {
    if (total + file.size > limitBytes) {
      omitted.push(file.path);
      continue;
    }
    total += file.size;
    files.push({ path: file.path, content: await readFile(path.join(dir, file.path)) });
  }
  return { files, omitted };
}
