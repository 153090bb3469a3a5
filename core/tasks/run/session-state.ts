import type { RuntimeStore } from '../../store';

/** Whether the task's session (if it has one) has ended: an ended session refuses new model and tool work. */
export async function sessionHasEnded(store: RuntimeStore, sessionId: string): Promise<boolean> {
  return sessionId !== '' && (await store.loadSessionStatus(sessionId)) !== 'active';
}
