/**
 * Button values and modal `private_metadata` carry small JSON documents we wrote ourselves.
 * They come back through the user's client, so they are parsed and checked like any input.
 */
import type { z } from 'zod';

export function parseJsonValue<T>(text: string | null | undefined, schema: z.ZodType<T>): T | undefined {
  if (!text) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
