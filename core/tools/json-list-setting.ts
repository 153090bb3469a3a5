import { z } from 'zod';

/** A setting holding a JSON array of objects, each validated; problems are named with their place. */
export function parseJsonList<T extends z.ZodType>(setting: string, json: string | undefined, item: T): z.infer<T>[] {
  if (!json) return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new Error(`${setting} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = z.array(item).safeParse(value);
  if (!parsed.success) throw new Error(`${setting} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
