/** A stored JSON value checked on the way out: a damaged or outdated value reads as absent instead of throwing. */
import type { z } from 'zod';

export function parseStored<T>(schema: z.ZodType<T>, raw: string | null): T | undefined {
  if (raw === null) return undefined;
  try {
    const result = schema.safeParse(JSON.parse(raw));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}
