import { fileAnswer, memoryFilesAnswer, sessionFilesAnswer } from './shannon-schemas';
import { findConversation } from '../../core/sessions/conversations';
import { ConversationClosedError } from '../../core/sessions/errors';
import { listFolder, readFolderFile, type FolderEntry } from '../../core/tools/builtin/folder-browsing';
import { memoryDirOf, workspaceDirOf } from '../../core/tools/builtin/workspace';
import type { ShannonCall, ShannonDeps, ShannonRoute } from './shannon-route';

// The files agents wrote, as Shannon's gateway serves them: a session's workspace (file_write) and
// the caller's memory (memory_write), which outlives sessions. Text comes as it is, anything else
// base64-encoded. The API reads the folders the worker writes (WEFT_WORKSPACE_DIR, shared by both).

const maxDownloadBytes = 10 * 1024 * 1024;

const entryJson = (entry: FolderEntry) => ({
  name: entry.name,
  path: entry.path,
  is_dir: entry.isDir,
  size_bytes: entry.sizeBytes,
  modified_at: entry.modifiedAt.toISOString(),
});

/** Text when the bytes are valid UTF-8 without control characters other than whitespace; base64 otherwise. */
function contentOf(bytes: Buffer): { content: string; encoding: 'utf-8' | 'base64' } {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const isText = !text.includes('\uFFFD') && ![...text].some((ch) => ch.charCodeAt(0) < 0x20 && !'\t\n\v\f\r'.includes(ch));
  return isText ? { content: text, encoding: 'utf-8' } : { content: bytes.toString('base64'), encoding: 'base64' };
}

const contentTypeOf = (file: string, encoding: string) =>
  file.endsWith('.md')
    ? 'text/markdown'
    : file.endsWith('.json')
      ? 'application/json'
      : file.endsWith('.csv')
        ? 'text/csv'
        : encoding === 'base64'
          ? 'application/octet-stream'
          : 'text/plain';

async function download(root: string, relative: string) {
  const bytes = await readFolderFile(root, relative, maxDownloadBytes);
  const { content, encoding } = contentOf(bytes);
  return { body: { success: true, path: relative, content, encoding, content_type: contentTypeOf(relative, encoding), size_bytes: bytes.length } };
}

/** The caller's open session's workspace; a deleted or another tenant's session is not found. */
async function sessionFolder({ principal, params }: ShannonCall, deps: ShannonDeps): Promise<string> {
  const sessionId = params.session_id!;
  const conversation = await findConversation(deps.pool, principal.tenantId, sessionId, new Date());
  if (conversation.status === 'closed') throw new ConversationClosedError(sessionId);
  return workspaceDirOf(deps.workspaceDir, { tenantId: principal.tenantId, sessionId, taskId: '' });
}

const subfolder = (query: Record<string, unknown>) => (typeof query.path === 'string' ? query.path : '');

export const fileRoutes: ShannonRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/sessions/:session_id/files',
    answer: sessionFilesAnswer,
    summary: "A session workspace's files and folders (path: a folder inside it)",
    tag: 'files',
    query: ['path'],
    handle: async (call, deps) => ({
      body: {
        success: true,
        session_id: call.params.session_id!,
        files: (await listFolder(await sessionFolder(call, deps), subfolder(call.query))).map(entryJson),
      },
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/sessions/:session_id/files/*',
    answer: fileAnswer,
    summary: "One file of a session's workspace: text as is, anything else base64 (encoding says which)",
    tag: 'files',
    handle: async (call, deps) => download(await sessionFolder(call, deps), call.params['*']!),
  },
  {
    method: 'GET',
    path: '/api/v1/memory/files',
    answer: memoryFilesAnswer,
    summary: "The caller's memory files, which outlive sessions (path: a folder inside it)",
    tag: 'files',
    query: ['path'],
    handle: async ({ principal, query }, deps) => ({
      body: { success: true, files: (await listFolder(memoryDirOf(deps.workspaceDir, principal), subfolder(query))).map(entryJson) },
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/memory/files/*',
    answer: fileAnswer,
    summary: "One of the caller's memory files: text as is, anything else base64",
    tag: 'files',
    handle: async ({ principal, params }, deps) => download(memoryDirOf(deps.workspaceDir, principal), params['*']!),
  },
];
