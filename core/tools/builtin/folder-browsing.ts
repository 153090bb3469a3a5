import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';

// Reading a tool folder (a session's workspace, a user's memory) from outside the tools, for the
// file routes: entries of one folder and one file's bytes. A path is relative and stays inside the
// folder, also through symlinks; a folder that was never written is empty.

export class FolderPathError extends Error {
  readonly permanent = true;
}

export class FolderEntryNotFoundError extends Error {
  readonly permanent = true;
}

export interface FolderEntry {
  name: string;
  /** Relative to the folder, with "/" between segments. */
  path: string;
  isDir: boolean;
  sizeBytes: number;
  modifiedAt: Date;
}

/** The folder's path for `relative`, refused when it could leave the folder. */
async function inside(root: string, relative: string): Promise<string> {
  if (relative.includes('\0') || path.isAbsolute(relative) || relative.split(/[\\/]/).includes('..')) {
    throw new FolderPathError('path must be relative and stay inside the folder');
  }
  const target = path.join(root, relative);
  const [realRoot, realTarget] = await Promise.all([realpath(root), realpath(target)]).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new FolderEntryNotFoundError(`no such file or folder: ${relative || '/'}`);
    throw err;
  });
  if (realTarget !== realRoot && !realTarget.startsWith(`${realRoot}${path.sep}`))
    throw new FolderPathError('path must be relative and stay inside the folder');
  return realTarget;
}

/** The entries of `relative` (the folder itself when empty), folders first, then by name; symlinks are left out. */
export async function listFolder(root: string, relative = ''): Promise<FolderEntry[]> {
  let dir: string;
  try {
    dir = await inside(root, relative);
  } catch (err) {
    if (err instanceof FolderEntryNotFoundError && relative === '') return [];
    throw err;
  }
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOTDIR') throw new FolderPathError(`${relative} is a file, not a folder`);
    throw err;
  });
  const listed = await Promise.all(
    entries
      .filter((entry) => entry.isFile() || entry.isDirectory())
      .map(async (entry) => {
        const stats = await lstat(path.join(dir, entry.name));
        return {
          name: entry.name,
          path: path.posix.join(relative.split(path.sep).join('/'), entry.name),
          isDir: entry.isDirectory(),
          sizeBytes: entry.isDirectory() ? 0 : stats.size,
          modifiedAt: stats.mtime,
        };
      }),
  );
  return listed.sort((a, b) => Number(b.isDir) - Number(a.isDir) || a.name.localeCompare(b.name));
}

/** One file's bytes, refused past `maxBytes`. */
export async function readFolderFile(root: string, relative: string, maxBytes: number): Promise<Buffer> {
  if (relative === '') throw new FolderPathError('a file path is required');
  const file = await inside(root, relative);
  const stats = await lstat(file);
  if (!stats.isFile()) throw new FolderPathError(`${relative} is not a file`);
  if (stats.size > maxBytes) throw new FolderPathError(`${relative} is ${stats.size} bytes; at most ${maxBytes} are served`);
  return readFile(file);
}
