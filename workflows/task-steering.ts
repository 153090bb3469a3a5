import { condition, getExternalWorkflowHandle, log, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { storeActivities } from './activity-stubs';
import {
  agentHoldSignal,
  agentMessageSignal,
  controlStateQuery,
  handlerDescriptions,
  pauseTaskUpdate,
  resumeTaskUpdate,
  sendMessageUpdate,
  type ControlRequest,
  type ControlState,
  type TaskMessage,
  type TaskView,
} from './messages';
import { pausedKey } from './search-attributes';
import { agentWorkflowIdOf, taskRunFieldsOf, type TaskScope } from './task-scope';

// Pausing and resuming a running task. A pause takes effect at step boundaries: the model or tool
// call under way finishes, and no agent starts another step (nor the plan another agent, nor the
// synthesis) until the task is resumed. Each change is recorded in the run log and the stream, and
// shows in the Web UI as the WeftPaused search attribute. Cancelling a paused task cancels it.
// A pause does not stop clocks: an approval's deadline and the budgets run on as before. People's
// messages to the task reach its agents with their next model step, each once.

const { recordControlChange, recordMessageReceived } = storeActivities;

const maxMessageChars = 32 * 1024;

export interface TaskSteering {
  /** Resolves at once unless the task is paused; then once it is resumed. Every step boundary awaits it. */
  hold(): Promise<void> | undefined;
  /** The messages people sent since the last call, for the next model step (each is handed out once). */
  takeMessages(): TaskMessage[];
}

function checkMessage(message: TaskMessage): void {
  if (typeof message !== 'object' || message === null) throw new Error('send {"id": "...", "text": "...", "from": "..."}');
  if (typeof message.id !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(message.id)) throw new Error('id must be 1-128 letters, digits, ".", "_", ":" or "-"');
  if (typeof message.text !== 'string' || message.text.trim() === '') throw new Error('text must be a non-empty string');
  if (message.text.length > maxMessageChars) throw new Error(`text is longer than ${maxMessageChars} characters`);
  if (typeof message.from !== 'string') throw new Error('from must be a string');
}

/** A queue of messages for the next step: each is handed out once. */
function inbox() {
  let waiting: TaskMessage[] = [];
  return {
    add: (message: TaskMessage) => void waiting.push(message),
    take: () => {
      const taken = waiting;
      waiting = [];
      return taken;
    },
  };
}

export interface SteeringOptions {
  task: TaskScope;
  view: TaskView;
  /** Why the task can no longer be steered (it is ending or being cancelled), or undefined while it can. */
  unsteerable(): string | undefined;
  /** The cancellation asked for, if any. */
  cancellation(): { reason: string; requestedBy?: string } | undefined;
}

function checkRequest(request: ControlRequest): void {
  if (typeof request !== 'object' || request === null) throw new Error('send {"reason": "...", "requestedBy": "..."}');
  for (const field of ['reason', 'requestedBy'] as const) {
    if (request[field] !== undefined && typeof request[field] !== 'string') throw new Error(`${field} must be a string`);
  }
  if ((request.reason?.length ?? 0) > 1000) throw new Error('reason is longer than 1000 characters');
}

export function steerTask(options: SteeringOptions): TaskSteering {
  const { task, view } = options;
  let paused: Omit<ControlState, 'isCancelled' | 'cancelReason' | 'cancelledBy'> = { isPaused: false };
  let changes = 0;

  const controlState = (): ControlState => {
    const cancellation = options.cancellation();
    return {
      ...paused,
      isCancelled: cancellation !== undefined,
      ...(cancellation ? { cancelReason: cancellation.reason, ...(cancellation.requestedBy ? { cancelledBy: cancellation.requestedBy } : {}) } : {}),
    };
  };

  /** Tells each running agent of the plan to hold or go on; an agent that just ended is past caring. */
  const holdAgents = (hold: boolean) => {
    for (const agent of view.agents.filter((a) => a.status === 'RUNNING')) {
      getExternalWorkflowHandle(agentWorkflowIdOf(task.taskWorkflowId, agent.agentId))
        .signal(agentHoldSignal, hold)
        .catch((err: unknown) => log.warn('telling an agent to hold or go on failed', { agentId: agent.agentId, hold, error: String(err) }));
    }
  };

  const change = async (kind: 'paused' | 'resumed', request: ControlRequest): Promise<ControlState> => {
    const by = request.requestedBy || 'unknown';
    const reason = request.reason ?? '';
    paused = kind === 'paused' ? { isPaused: true, pausedAt: new Date().toISOString(), pauseReason: reason, pausedBy: by } : { isPaused: false };
    changes += 1;
    holdAgents(kind === 'paused');
    upsertSearchAttributes([{ key: pausedKey, value: kind === 'paused' }]);
    const state = controlState();
    await recordControlChange({
      ...taskRunFieldsOf(task),
      sessionId: task.sessionId,
      kind,
      sequence: changes,
      reason,
      by,
      atMs: Date.now(),
    });
    return state;
  };

  const validator = (request: ControlRequest) => {
    checkRequest(request);
    const why = options.unsteerable();
    if (why) throw new Error(why);
  };
  setHandler(pauseTaskUpdate, (request) => (paused.isPaused ? Promise.resolve(controlState()) : change('paused', request)), {
    validator,
    description: handlerDescriptions.pauseTask,
  });
  setHandler(resumeTaskUpdate, (request) => (paused.isPaused ? change('resumed', request) : Promise.resolve(controlState())), {
    validator,
    description: handlerDescriptions.resumeTask,
  });
  setHandler(controlStateQuery, controlState, { description: handlerDescriptions.controlState });

  const takeMessages = receiveMessages(options);
  // Not paused, a step boundary waits for nothing: no condition is even registered.
  return { hold: () => (paused.isPaused ? condition(() => !paused.isPaused) : undefined), takeMessages };
}

/**
 * People's messages to the task: each goes to the plan's running agents, or else to the task's own
 * next step (its agent, or the synthesis). What it returns hands out the waiting ones.
 */
function receiveMessages(options: SteeringOptions): () => TaskMessage[] {
  const { task, view } = options;
  const messages = inbox();
  const received = new Set<string>();
  setHandler(
    sendMessageUpdate,
    async (message) => {
      if (received.has(message.id)) return { accepted: true, duplicate: true };
      received.add(message.id);
      const running = view.agents.filter((a) => a.status === 'RUNNING');
      if (running.length === 0) messages.add(message);
      for (const agent of running) {
        getExternalWorkflowHandle(agentWorkflowIdOf(task.taskWorkflowId, agent.agentId))
          .signal(agentMessageSignal, message)
          .catch((err: unknown) => log.warn('passing a message to an agent failed', { agentId: agent.agentId, error: String(err) }));
      }
      await recordMessageReceived({
        ...taskRunFieldsOf(task),
        sessionId: task.sessionId,
        message,
        atMs: Date.now(),
      });
      return { accepted: true, duplicate: false };
    },
    {
      validator: (message) => {
        checkMessage(message);
        const why = options.unsteerable();
        if (why) throw new Error(why);
      },
      description: handlerDescriptions.sendMessage,
    },
  );

  return messages.take;
}

/** An agent of a plan holds, and gets messages, when its task tells it to (agentHoldSignal, agentMessageSignal). */
export function agentSteering(): TaskSteering {
  let held = false;
  const messages = inbox();
  setHandler(agentHoldSignal, (hold) => void (held = hold), { description: handlerDescriptions.agentHold });
  setHandler(agentMessageSignal, messages.add, { description: handlerDescriptions.agentMessage });
  return { hold: () => (held ? condition(() => !held) : undefined), takeMessages: messages.take };
}
