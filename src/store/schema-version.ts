/**
 * The version of what the bot keeps in the store. Code reads stores of its own version only: a change that
 * makes stored data unreadable to the code before it raises `STORE_SCHEMA_VERSION` (and carries what moves the
 * data over), so an older replica started on that store stops instead of misreading it.
 */
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

export const STORE_SCHEMA_VERSION = 1;

/**
 * At start: a store without a version is this code's (written now); a store of a newer version (or one this code
 * cannot read) throws, with the sentence the process stops with.
 */
export async function claimSchemaVersion(kv: KeyValueStore, keys: Pick<Keys, 'schemaVersion'>): Promise<void> {
  const key = keys.schemaVersion();
  await kv.set(key, String(STORE_SCHEMA_VERSION), { onlyIfAbsent: true });
  const stored = await kv.get(key);
  if (stored !== null && /^\d+$/.test(stored) && Number(stored) <= STORE_SCHEMA_VERSION) return;
  throw new Error(
    `the store holds data of schema version ${stored ?? '(none)'}, newer than this version of the bot reads (${STORE_SCHEMA_VERSION}): deploy the newer version of the bot, or point it at another store`,
  );
}
