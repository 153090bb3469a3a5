/** One server-sent event as the wire carries it. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Reads a text/event-stream response until it ends (or `stopAfter` events arrive), returning its
 * events and how many comment lines (keep-alives) it carried.
 */
export async function readSse(response: Response, stopAfter = Infinity): Promise<{ events: SseEvent[]; comments: number }> {
  const events: SseEvent[] = [];
  let comments = 0;
  let buffer = '';
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  try {
    while (events.length < stopAfter) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) >= 0 && events.length < stopAfter) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const event: SseEvent = { data: '' };
        let isEvent = false;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments += 1;
          else if (line.startsWith('id: ')) [event.id, isEvent] = [line.slice(4), true];
          else if (line.startsWith('event: ')) [event.event, isEvent] = [line.slice(7), true];
          else if (line.startsWith('data: ')) [event.data, isEvent] = [event.data + line.slice(6), true];
        }
        if (isEvent) events.push(event);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return { events, comments };
}
