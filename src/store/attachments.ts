/**
 * Links to files an agent sent a customer from a handoff thread: `PUBLIC_URL/attachments/<token>`. The token
 * is all it takes to open the file, so it is never stored: only its SHA-256 is, and a lookup is by that
 * hash alone (how long a lookup takes says nothing about how close a guess was).
 *
 * Two keys per link, expiring together with it:
 * - the record (`attachment(team, hash)`, a workspace kind: uninstalling finds it) — which Slack file, as the
 *   customer gets it, and until when;
 * - the lookup (`attachmentToken(hash)` → team), since a link names no workspace. Uninstalling deletes it
 *   with the record (`lookupsOf`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Keys } from './keys.js';
import { unsegment } from './keys.js';
import type { KeyValueStore } from './kv.js';

/** 256 bits; base64url, 43 characters — the shape log lines mask wherever it stands (src/util/secret-shapes.ts). */
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The Slack file a link serves, as the customer's download names it. */
export interface AttachmentFile {
  /** Slack's file id. */
  id: string;
  name: string;
  mimetype: string;
  /** Bytes, as Slack reported them when the link was made. */
  size: number;
}

export interface Attachment extends AttachmentFile {
  teamId: string;
  /** Epoch ms (the store's clock). */
  expiresAt: number;
}

const recordSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  mimetype: z.string(),
  size: z.number().int().nonnegative(),
  expiresAt: z.number(),
});

function attachmentTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export class AttachmentRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly now: () => number,
  ) {}

  /** A new link's token for `file` of the workspace, working for `ttlMs`. */
  async create(teamId: string, file: AttachmentFile, ttlMs: number): Promise<string> {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const hash = attachmentTokenHash(token);
    const record: z.input<typeof recordSchema> = {
      id: file.id,
      name: file.name,
      mimetype: file.mimetype,
      size: file.size,
      expiresAt: this.now() + ttlMs,
    };
    // The record first: a lookup that names the workspace always finds it.
    await this.kv.set(this.keys.attachment(teamId, hash), JSON.stringify(record), { ttlMs });
    await this.kv.set(this.keys.attachmentToken(hash), teamId, { ttlMs });
    return token;
  }

  /** The file behind a link; null for a token that is malformed, unknown, expired or of a forgotten workspace. */
  async find(token: string): Promise<Attachment | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const hash = attachmentTokenHash(token);
    const teamId = await this.kv.get(this.keys.attachmentToken(hash));
    if (teamId === null) return null;
    const raw = await this.kv.get(this.keys.attachment(teamId, hash));
    if (raw === null) return null;
    let parsed;
    try {
      parsed = recordSchema.safeParse(JSON.parse(raw));
    } catch {
      return null;
    }
    if (!parsed.success || parsed.data.expiresAt <= this.now()) return null;
    return { teamId, ...parsed.data };
  }

  /** The lookups of the workspace's attachment records among `keys` (what the uninstall's scan found). */
  lookupsOf(teamId: string, keys: readonly string[]): string[] {
    // `segment('')` is empty: this is exactly what every one of the workspace's attachment keys starts with.
    const start = this.keys.attachment(teamId, '');
    return keys
      .filter((key) => key.startsWith(start))
      .map((key) => this.keys.attachmentToken(unsegment(key.slice(start.length))));
  }
}
