import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Typed search attributes let operators find Weft tasks in the Web UI, e.g.
// `WeftTaskStatus = "RUNNING" AND WeftUserId = "alice"`.
export const taskStatusKey = defineSearchAttributeKey('WeftTaskStatus', SearchAttributeType.KEYWORD);
export const executionModeKey = defineSearchAttributeKey('WeftMode', SearchAttributeType.KEYWORD);
export const userIdKey = defineSearchAttributeKey('WeftUserId', SearchAttributeType.KEYWORD);
export const sessionIdKey = defineSearchAttributeKey('WeftSessionId', SearchAttributeType.KEYWORD);
export const tenantIdKey = defineSearchAttributeKey('WeftTenantId', SearchAttributeType.KEYWORD);
export const awaitingApprovalKey = defineSearchAttributeKey('WeftAwaitingApproval', SearchAttributeType.BOOL);
/** Set while a person has the task paused (pauseTask); the Web UI lists paused tasks with `WeftPaused = true`. */
export const pausedKey = defineSearchAttributeKey('WeftPaused', SearchAttributeType.BOOL);

/** The eval a task is a case of (`weft eval`); the Web UI finds an eval's tasks with `WeftEval = "<eval id>"`. */
export const evalKey = defineSearchAttributeKey('WeftEval', SearchAttributeType.KEYWORD);

export const weftSearchAttributes = [taskStatusKey, executionModeKey, userIdKey, sessionIdKey, tenantIdKey, awaitingApprovalKey, pausedKey, evalKey] as const;
