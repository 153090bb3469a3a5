// Streams watching the key they were opened with: when a key stops being usable (revoked, expired,
// deleted) every stream on it is aborted. A change is re-checked against the database rather than
// trusted, so a notification about a key that is still fine ends nothing.

// setTimeout's longest delay (24.8 days): a stream open that long past its key's expiry is ended
// by the next change to the key instead.
const maxTimerMs = 2 ** 31 - 1;
import { log } from '../../core/telemetry/logger';

export interface KeyWatchers {
  watch(keyId: string, expiresAt: Date | undefined): { signal: AbortSignal; release(): void };
  /** The key changed: its streams end if it is no longer usable. */
  recheck(keyId: string): void;
  /** Changes may have been missed: re-check every watched key. */
  recheckAll(): void;
}

export function createKeyWatchers(isUsable: (keyId: string) => Promise<boolean>): KeyWatchers {
  const watchers = new Map<string, Set<AbortController>>();
  const end = (keyId: string) => {
    for (const watcher of watchers.get(keyId) ?? []) watcher.abort();
    watchers.delete(keyId);
  };
  const recheck = (keyId: string) => {
    if (!watchers.has(keyId)) return;
    isUsable(keyId).then(
      (usable) => (usable ? undefined : end(keyId)),
      (err: unknown) => log().error({ err, keyId }, 'checking an API key after a change failed'),
    );
  };
  return {
    watch(keyId, expiresAt) {
      const watcher = new AbortController();
      const set = watchers.get(keyId) ?? new Set<AbortController>();
      watchers.set(keyId, set);
      set.add(watcher);
      const untilExpiry = expiresAt ? Math.max(expiresAt.getTime() - Date.now(), 0) : Infinity;
      const timer = untilExpiry <= maxTimerMs ? setTimeout(() => recheck(keyId), untilExpiry) : undefined;
      timer?.unref();
      return {
        signal: watcher.signal,
        release() {
          clearTimeout(timer);
          set.delete(watcher);
          if (set.size === 0 && watchers.get(keyId) === set) watchers.delete(keyId);
        },
      };
    },
    recheck,
    recheckAll() {
      for (const keyId of watchers.keys()) recheck(keyId);
    },
  };
}
