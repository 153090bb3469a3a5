// A cap on how many things one tenant has running at once in this process (e.g. Python programs on
// one worker), so one tenant's burst leaves room for the others.

export interface InFlightCap {
  /** A slot for the tenant, or undefined when it already holds `limit`; release it when done. */
  tryAcquire(tenantId: string): (() => void) | undefined;
}

export function inFlightCap(limit: number): InFlightCap {
  const running = new Map<string, number>();
  return {
    tryAcquire(tenantId) {
      if (limit <= 0) return () => undefined;
      const now = running.get(tenantId) ?? 0;
      if (now >= limit) return undefined;
      running.set(tenantId, now + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (running.get(tenantId) ?? 1) - 1;
        if (left === 0) running.delete(tenantId);
        else running.set(tenantId, left);
      };
    },
  };
}
