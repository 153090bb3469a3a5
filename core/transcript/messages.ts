import { z } from 'zod';

// Weft's transcript (seed 003): the only definition of what a model saw. Messages have a role and
// ordered typed parts; order is sacred and is kept through storage, replay and provider encoding.

const thinkingPart = z.strictObject({
  kind: z.literal('thinking'),
  text: z.string().optional(),
  signature: z.string().optional(),
  /** Provider-masked reasoning, base64. */
  redacted: z.string().optional(),
});
const textPart = z.strictObject({ kind: z.literal('text'), text: z.string() });
const imagePart = z.strictObject({
  kind: z.literal('image'),
  mediaType: z.string().optional(),
  data: z.string().optional(),
  url: z.string().optional(),
});
const documentPart = z.strictObject({
  kind: z.literal('document'),
  name: z.string().optional(),
  mediaType: z.string().optional(),
  text: z.string().optional(),
  data: z.string().optional(),
  uri: z.string().optional(),
  chunks: z.array(z.string()).optional(),
});
const citationsPart = z.strictObject({
  kind: z.literal('citations'),
  citations: z.array(z.record(z.string(), z.unknown())),
});
const toolUsePart = z.strictObject({
  kind: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});
const toolResultPart = z.strictObject({
  kind: z.literal('tool_result'),
  toolUseId: z.string().min(1),
  content: z.unknown(),
  isError: z.boolean().optional(),
});
const cacheCheckpointPart = z.strictObject({ kind: z.literal('cache_checkpoint') });

export const partSchema = z.discriminatedUnion('kind', [
  thinkingPart,
  textPart,
  imagePart,
  documentPart,
  citationsPart,
  toolUsePart,
  toolResultPart,
  cacheCheckpointPart,
]);

export const messageSchema = z.strictObject({
  role: z.enum(['user', 'assistant']),
  parts: z.array(partSchema).min(1),
});

export type Part = z.infer<typeof partSchema>;
export type ToolUsePart = z.infer<typeof toolUsePart>;
export type ToolResultPart = z.infer<typeof toolResultPart>;
export type Message = z.infer<typeof messageSchema>;

export const userText = (text: string): Message => ({ role: 'user', parts: [{ kind: 'text', text }] });
export const assistantText = (text: string): Message => ({ role: 'assistant', parts: [{ kind: 'text', text }] });

/** The text parts of a message, joined: what a user reads. */
export function textOf(message: Message): string {
  return message.parts.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('');
}

/** The thinking parts of a message, joined: the model's reasoning, when it shared any. */
export function thinkingOf(message: Message): string {
  return message.parts.flatMap((part) => (part.kind === 'thinking' && part.text ? [part.text] : [])).join('');
}
