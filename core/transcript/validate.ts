import type { Message } from './messages';

export class TranscriptError extends Error {
  readonly permanent = true;
  constructor(detail: string) {
    super(`invalid transcript: ${detail}`);
    this.name = 'TranscriptError';
  }
}

/**
 * Goa-AI's ValidatePlannerTranscript: each assistant tool-use group must be followed by exactly one
 * user message whose tool results match the tool-use ids one to one. Tool uses come only from the
 * assistant, tool results only from the user. The messages are not changed.
 */
export function validateTranscript(messages: readonly Message[]): void {
  let pending: Set<string> | undefined;
  messages.forEach((message, index) => {
    const uses = message.parts.flatMap((p) => (p.kind === 'tool_use' ? [p.id] : []));
    const results = message.parts.flatMap((p) => (p.kind === 'tool_result' ? [p.toolUseId] : []));
    if (message.role === 'user' && uses.length > 0) throw new TranscriptError(`message ${index}: a user message cannot use tools`);
    if (message.role === 'assistant' && results.length > 0) {
      throw new TranscriptError(`message ${index}: tool results belong in a user message`);
    }
    if (pending) {
      if (message.role !== 'user') {
        throw new TranscriptError(`message ${index}: tool uses of message ${index - 1} need a user message with their results`);
      }
      const seen = new Set<string>();
      for (const id of results) {
        if (!pending.has(id)) throw new TranscriptError(`message ${index}: tool result ${id} answers no tool use of message ${index - 1}`);
        if (seen.has(id)) throw new TranscriptError(`message ${index}: tool result ${id} appears twice`);
        seen.add(id);
      }
      const missing = [...pending].filter((id) => !seen.has(id));
      if (missing.length > 0) throw new TranscriptError(`message ${index}: no result for tool use ${missing.join(', ')}`);
      pending = undefined;
    } else if (results.length > 0) {
      throw new TranscriptError(`message ${index}: tool results without a preceding tool use`);
    }
    if (uses.length > 0) {
      if (new Set(uses).size !== uses.length) throw new TranscriptError(`message ${index}: duplicate tool use ids`);
      pending = new Set(uses);
    }
  });
  if (pending) throw new TranscriptError(`the last message's tool uses have no results`);
}
