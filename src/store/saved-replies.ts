/**
 * A workspace's saved replies: short answers an admin keeps under a name (`/campaign replies add`) and any
 * full member sends from a conversation card's **Quick reply**. One hash per workspace, name → JSON. A
 * workspace keeps at most `SAVED_REPLIES_MAX` (what one Slack select lists); the count is read before a new
 * name is written, so two admins adding at the very same moment could pass it by one — never more.
 */
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';

/** Slack's static select lists at most 100 options: the Quick reply form shows every saved reply. */
export const SAVED_REPLIES_MAX = 100;

export interface SavedReply {
  name: string;
  /** As the customer reads it: plain text. */
  text: string;
  /** The admin who saved it, and when (epoch ms). */
  by: string;
  at: number;
}

const storedSchema = z.object({ text: z.string(), by: z.string(), at: z.number() });

export type SaveOutcome = 'added' | 'replaced' | 'full';

export class SavedReplyRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  /** Every saved reply of the workspace, by name. */
  async list(teamId: string): Promise<SavedReply[]> {
    const fields = await this.kv.hashGetAll(this.keys.savedReplies(teamId));
    return Object.entries(fields)
      .flatMap(([name, raw]) => {
        const reply = parse(name, raw);
        return reply ? [reply] : [];
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async get(teamId: string, name: string): Promise<SavedReply | undefined> {
    const raw = await this.kv.hashGet(this.keys.savedReplies(teamId), name);
    return raw === null ? undefined : parse(name, raw);
  }

  /** Saves `reply` under its name: a new name while there is room, or in place of the one saved under it. */
  async save(teamId: string, reply: SavedReply): Promise<SaveOutcome> {
    const key = this.keys.savedReplies(teamId);
    const value = JSON.stringify({ text: reply.text, by: reply.by, at: reply.at });
    if ((await this.kv.hashGet(key, reply.name)) !== null) {
      await this.kv.hashSet(key, { [reply.name]: value });
      return 'replaced';
    }
    if ((await this.kv.hashLen(key)) >= SAVED_REPLIES_MAX) return 'full';
    if (await this.kv.hashSetIfAbsent(key, reply.name, value)) return 'added';
    // Another admin saved this name a moment ago: the later save wins, as it would a moment after.
    await this.kv.hashSet(key, { [reply.name]: value });
    return 'replaced';
  }

  /** False when nothing was saved under that name. */
  async remove(teamId: string, name: string): Promise<boolean> {
    return (await this.kv.hashDel(this.keys.savedReplies(teamId), name)) > 0;
  }
}

function parse(name: string, raw: string): SavedReply | undefined {
  try {
    const parsed = storedSchema.safeParse(JSON.parse(raw));
    return parsed.success ? { name, ...parsed.data } : undefined;
  } catch {
    return undefined;
  }
}
