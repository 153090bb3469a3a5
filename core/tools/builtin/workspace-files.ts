import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolError, toolMetadata, type ToolContext, type ToolDefinition } from '../tool';
import { memoryDirOf, workspaceDirOf } from './workspace';

// Files in a folder of the caller's: the session's workspace (file_read, file_write) or the user's
// memory, which outlives sessions (memory_read, memory_write); workspace.ts says where each lives.
// Paths are relative and must stay inside the folder, also through symlinks. Writing is dangerous:
// it needs approval.

const maxFileBytes = 1024 * 1024;

/** One kind of folder the file tools work in. */
interface FileFolder {
  read: string;
  write: string;
  /** How the tools' descriptions and errors name the folder. */
  called: string;
  dirOf(root: string, context: ToolContext): string;
}

const sessionWorkspace: FileFolder = { read: 'file_read', write: 'file_write', called: 'the session workspace', dirOf: workspaceDirOf };
const userMemory: FileFolder = { read: 'memory_read', write: 'memory_write', called: 'your memory (kept across sessions)', dirOf: memoryDirOf };

async function resolveInFolder(root: string, folder: FileFolder, context: ToolContext, relative: string): Promise<{ dir: string; file: string }> {
  if (path.isAbsolute(relative) || relative.split(/[\\/]/).includes('..')) {
    throw new ToolError('validation', `path must be relative and stay inside ${folder.called}`);
  }
  const dir = folder.dirOf(root, context);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, relative);
  const parent = await realpath(path.dirname(file)).catch(() => path.dirname(file));
  const realDir = await realpath(dir);
  if (parent !== realDir && !parent.startsWith(`${realDir}${path.sep}`)) {
    throw new ToolError('validation', `path must be relative and stay inside ${folder.called}`);
  }
  return { dir, file };
}

function folderFileTools(root: string, folder: FileFolder): ToolDefinition[] {
  const pathParameter = { type: 'string', minLength: 1, maxLength: 255, description: `path relative to ${folder.called}` };
  const read: ToolDefinition = {
    ...toolMetadata({
      name: folder.read,
      version: '1.0.0',
      description: `Reads a text file from ${folder.called}.`,
      category: 'files',
      parameters: { type: 'object', properties: { path: pathParameter }, required: ['path'], additionalProperties: false },
      timeoutMs: 5_000,
      rateLimitPerMinute: 600,
      sessionAware: true,
    }),
    async execute(args, context) {
      const { file } = await resolveInFolder(root, folder, context, String(args.path));
      try {
        const content = await readFile(file, { signal: context.signal });
        if (content.length > maxFileBytes) throw new ToolError('execution', `file is larger than ${maxFileBytes} bytes`);
        return { path: args.path, content: content.toString('utf8') };
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT') throw new ToolError('execution', `no such file: ${String(args.path)}`);
        throw err;
      }
    },
  };
  const write: ToolDefinition = {
    ...toolMetadata({
      name: folder.write,
      version: '1.0.0',
      description: `Writes a text file in ${folder.called} (replaces an existing file).`,
      category: 'files',
      parameters: {
        type: 'object',
        properties: { path: pathParameter, content: { type: 'string', maxLength: maxFileBytes } },
        required: ['path', 'content'],
        additionalProperties: false,
      },
      timeoutMs: 5_000,
      rateLimitPerMinute: 600,
      dangerous: true,
      // A retried call writes the same bytes to the same path again: one call, one effect.
      idempotency: 'keyed',
      sessionAware: true,
    }),
    async execute(args, context) {
      const { file } = await resolveInFolder(root, folder, context, String(args.path));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, String(args.content), { signal: context.signal });
      return { path: args.path, bytes: Buffer.byteLength(String(args.content)) };
    },
  };
  return [read, write];
}

export const workspaceFileTools = (root: string) => folderFileTools(root, sessionWorkspace);
export const memoryFileTools = (root: string) => folderFileTools(root, userMemory);
