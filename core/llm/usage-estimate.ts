import type { Message } from '../transcript';
import type { TokenCounts } from './chat-model';
import { countMessageTokens, countTextTokens, type TokenizerName } from './tokenizer';

// Many OpenAI-compatible servers report no usage (always, or when streaming). Zero would mean a free
// call: budgets would never bind and spend would read $0. So when a provider reports none, Weft
// counts the call itself with the model's tokenizer, and says the counts are estimated.

const reportedNothing = (usage: TokenCounts) => usage.promptTokens === 0 && usage.completionTokens === 0 && usage.totalTokens === 0;

/** What a reply produced, as text to count: its reasoning, text and tool calls. */
export function producedText(message: Message): string {
  return message.parts
    .map((part) =>
      part.kind === 'text' || part.kind === 'thinking' ? (part.text ?? '') : part.kind === 'tool_use' ? `${part.name}${JSON.stringify(part.input ?? {})}` : '',
    )
    .join('');
}

/** The provider's usage, or, when it reported none, the call counted with `tokenizer`, marked estimated. */
export function usageOrEstimate(
  reported: TokenCounts,
  request: { messages: readonly Message[]; system?: string },
  produced: string,
  tokenizer: TokenizerName,
): TokenCounts {
  if (!reportedNothing(reported)) return reported;
  const promptTokens = countMessageTokens(request.messages, tokenizer, request.system);
  const completionTokens = countTextTokens(produced, tokenizer);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}
