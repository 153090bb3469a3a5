// What a finished task leaves in its user's memory (the files that outlive sessions, which
// Shannon's /api/v1/memory/files lists): a model reads the task and its answer and says whether
// something is worth keeping, and as what. The workflow decides with these pure functions.

/** Shorter answers are not worth a model call (Shannon's threshold). */
export const minRememberedResultLength = 500;
const maxQueryChars = 1_000;
const maxResultChars = 4_000;

/** The instruction the memory step's model gets; the demo model knows it by its first line. */
export const memoryInstruction = 'Decide whether this finished task is worth remembering for its user.';

export function memoryPrompt(query: string, result: string): string {
  return [
    memoryInstruction,
    'Answer with one JSON object and nothing else: {"worth_remembering": true or false, "title": "...", "summary": "one sentence", "content": "the facts to keep, in Markdown", "suggested_path": "topic/name.md"}.',
    `## Task\n${query.slice(0, maxQueryChars)}`,
    `## Answer\n${result.slice(0, maxResultChars)}`,
  ].join('\n\n');
}

interface Note {
  worth_remembering: boolean;
  title: string;
  summary: string;
  content: string;
  suggested_path: string;
}

/** The note the reply holds, its text fields '' when absent; undefined when it holds none. */
function noteIn(value: unknown): Note | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  if (typeof fields.worth_remembering !== 'boolean') return undefined;
  const text = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : '');
  return {
    worth_remembering: fields.worth_remembering,
    title: text('title'),
    summary: text('summary'),
    content: text('content'),
    suggested_path: text('suggested_path'),
  };
}

export type MemoryDecision = { kind: 'keep'; path: string; content: string } | { kind: 'skip'; reason: string };

/** The reply's first JSON object: models wrap it in prose or code fences. */
function jsonObjectIn(reply: string): unknown {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(reply.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/** A relative Markdown path inside the memory folder, or undefined for one that could leave it. */
function safeNotePath(suggested: string): string | undefined {
  const segments = suggested
    .trim()
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.length > 4 || segments.some((s) => s === '..' || !/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,79}$/.test(s))) return undefined;
  const file = segments.join('/');
  return file.endsWith('.md') ? file : `${file}.md`;
}

/** What to keep from the model's reply, or why nothing is kept. */
export function memoryDecisionOf(reply: string): MemoryDecision {
  const note = noteIn(jsonObjectIn(reply));
  if (!note) return { kind: 'skip', reason: 'the model did not answer with the JSON object asked for' };
  if (!note.worth_remembering) return { kind: 'skip', reason: 'the model found nothing worth remembering' };
  if (note.summary.length < 20 || note.content.length < 100) return { kind: 'skip', reason: 'the note is too thin to keep' };
  const path = safeNotePath(note.suggested_path);
  if (!path) return { kind: 'skip', reason: `the suggested path ${JSON.stringify(note.suggested_path)} is not a safe relative path` };
  return { kind: 'keep', path, content: `# ${note.title || path}\n\n${note.summary}\n\n${note.content}\n` };
}
