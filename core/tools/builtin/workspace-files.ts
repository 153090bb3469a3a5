import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolError, toolMetadata, type ToolContext, type ToolDefinition } from '../tool';
import { workspaceDirOf } from './workspace';

// Files in a per-session workspace (workspace.ts). Paths are relative and must stay inside the
// workspace, also through symlinks. Writing is dangerous: it needs approval.

const maxFileBytes = 1024 * 1024;

async function resolveInWorkspace(root: string, context: ToolContext, relative: string): Promise<{ dir: string; file: string }> {
  if (path.isAbsolute(relative) || relative.split(/[\\/]/).includes('..')) {
    throw new ToolError('validation', 'path must be relative and stay inside the session workspace');
  }
  const dir = workspaceDirOf(root, context);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, relative);
  const parent = await realpath(path.dirname(file)).catch(() => path.dirname(file));
  const realDir = await realpath(dir);
  if (parent !== realDir && !parent.startsWith(`${realDir}${path.sep}`)) {
    throw new ToolError('validation', 'path must be relative and stay inside the session workspace');
  }
  return { dir, file };
}

const pathParameter = { type: 'string', minLength: 1, maxLength: 255, description: 'path relative to the session workspace' };

export function workspaceFileTools(root: string): ToolDefinition[] {
  const read: ToolDefinition = {
    ...toolMetadata({
      name: 'file_read',
      version: '1.0.0',
      description: "Reads a text file from the session's workspace.",
      category: 'files',
      parameters: { type: 'object', properties: { path: pathParameter }, required: ['path'], additionalProperties: false },
      timeoutMs: 5_000,
      rateLimitPerMinute: 600,
      sessionAware: true,
    }),
    async execute(args, context) {
      const { file } = await resolveInWorkspace(root, context, String(args.path));
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
      name: 'file_write',
      version: '1.0.0',
      description: "Writes a text file in the session's workspace (replaces an existing file).",
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
      const { file } = await resolveInWorkspace(root, context, String(args.path));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, String(args.content), { signal: context.signal });
      return { path: args.path, bytes: Buffer.byteLength(String(args.content)) };
    },
  };
  return [read, write];
}
