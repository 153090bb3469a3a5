// Typed store errors with stable messages. `permanent` marks contract violations that can never
// succeed on retry; the activity layer turns them into non-retryable failures. Database and network
// errors are not StoreErrors and stay retryable.
export abstract class StoreError extends Error {
  readonly permanent: boolean = true;
  protected constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class SessionNotFoundError extends StoreError {
  constructor() {
    super('session not found');
  }
}
export class SessionEndedError extends StoreError {
  constructor() {
    super('session ended');
  }
}
export class SessionPurgedError extends StoreError {
  constructor() {
    super('session purged');
  }
}
export class SessionHasActiveRunsError extends StoreError {
  constructor() {
    super('session has active runs');
  }
}
export class RunNotFoundError extends StoreError {
  constructor() {
    super('run not found');
  }
}
export class RunMetadataConflictError extends StoreError {
  constructor() {
    super('run metadata conflict');
  }
}
export class RunTerminalOutcomeConflictError extends StoreError {
  constructor() {
    super('run terminal outcome conflict');
  }
}
export class RunCancellationReasonConflictError extends StoreError {
  constructor() {
    super('run cancellation reason conflict');
  }
}
export class RunNotActiveError extends StoreError {
  constructor() {
    super('run is not active');
  }
}
export class RunSuspensionNotFoundError extends StoreError {
  constructor() {
    super('run suspension not found');
  }
}
export class RunSuspensionConflictError extends StoreError {
  constructor() {
    super('run suspension conflict');
  }
}
export class EventConflictError extends StoreError {
  constructor(detail: string) {
    super(`run record conflict: ${detail}`);
  }
}
export class RecordOwnerMismatchError extends StoreError {
  constructor() {
    super('run record owner does not match stored run');
  }
}
export class InvalidCursorError extends StoreError {
  constructor() {
    super('invalid cursor');
  }
}
/** Input that breaks the contract before anything is read (missing ids, bad timestamps, bad JSON). */
export class InvalidStoreInputError extends StoreError {
  constructor(detail: string) {
    super(`invalid store input: ${detail}`);
  }
}
export class SessionNotEndedError extends StoreError {
  constructor() {
    super('session not ended');
  }
}
