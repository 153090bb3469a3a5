// Typed conversation errors with stable messages; the API maps each to one gRPC status. None can
// succeed on retry (`permanent`).
export abstract class ConversationError extends Error {
  readonly permanent = true;
  protected constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Unknown, or another tenant's: the two are indistinguishable on purpose. */
export class ConversationNotFoundError extends ConversationError {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} not found`);
  }
}
export class ConversationClosedError extends ConversationError {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} was deleted`);
  }
}
export class ConversationExpiredError extends ConversationError {
  constructor(
    readonly sessionId: string,
    readonly expiredAt: Date,
  ) {
    super(`session ${sessionId} expired at ${expiredAt.toISOString()}`);
  }
}
export class ConversationEndedError extends ConversationError {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} has ended`);
  }
}
export class MessageConflictError extends ConversationError {
  constructor(readonly messageId: string) {
    super(`message ${messageId} already exists with different content`);
  }
}
