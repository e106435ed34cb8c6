import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import type { SecretBox } from './secrets.js';

/** What may be shown about a workspace's platform connection (never the key itself). */
export interface Connection {
  /** Last 4 characters of the API key, or '' when the key is too short to reveal any of it safely. */
  last4: string;
  verifiedAt: Date;
  /** Slack user id of the admin who connected the key. */
  verifiedBy: string;
}

const FIELD = {
  apiKey: 'apiKey',
  last4: 'apiKeyLast4',
  verifiedAt: 'verifiedAt',
  verifiedBy: 'verifiedBy',
  hookToken: 'hookToken',
  hookTokenHash: 'hookTokenHash',
  retiredHookTokens: 'retiredHookTokens',
} as const;

/** 256 random bits, base64url (43 characters). */
const HOOK_TOKEN_BYTES = 32;
const HOOK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Rotated-out tokens remembered at most; beyond, the oldest are forgotten (their grace is long over). */
const RETIRED_KEPT = 10;

/** A hook token replaced by a rotation: sealed like the current one, accepted until `until` (epoch ms). */
const retiredSchema = z.array(
  z.object({ sealed: z.string(), hash: z.string(), until: z.number(), cleared: z.boolean() }),
);
type Retired = z.infer<typeof retiredSchema>[number];

/** A rotated-out token whose platform hooks may still be registered (see `rotateHookToken`). */
export interface RetiredHookToken {
  token: string;
  /** Epoch ms until which it is still accepted. */
  until: number;
}

function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function sameHash(hexA: string, hexB: string): boolean {
  const a = Buffer.from(hexA, 'hex');
  const b = Buffer.from(hexB, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Per-workspace settings: the platform API key (encrypted) with who verified it and when, and the hook token,
 * kept as hash → team (what webhooks resolve with; a Redis dump hands out no working URL) and sealed on the
 * workspace (to rebuild the hookUrl unsubscribe needs) — a rotated token too, for its grace period.
 */
export class WorkspaceRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly secrets: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  async setApiKey(teamId: string, apiKey: string, options: { verifiedBy: string }): Promise<void> {
    if (apiKey.length === 0) throw new Error('setApiKey: apiKey is empty');
    await this.kv.hashSet(this.keys.workspace(teamId), {
      [FIELD.apiKey]: this.secrets.seal(apiKey, apiKeyContext(teamId)),
      // Short keys get no last4: four characters of a six-character key would be most of the secret.
      [FIELD.last4]: apiKey.length >= 8 ? apiKey.slice(-4) : '',
      [FIELD.verifiedAt]: String(this.now()),
      [FIELD.verifiedBy]: options.verifiedBy,
    });
  }

  /** The decrypted key, or null when the workspace is not connected. Throws if the stored value does not open. */
  async getApiKey(teamId: string): Promise<string | null> {
    const sealed = await this.kv.hashGet(this.keys.workspace(teamId), FIELD.apiKey);
    return sealed === null ? null : this.secrets.open(sealed, apiKeyContext(teamId));
  }

  async getConnection(teamId: string): Promise<Connection | null> {
    const fields = await this.kv.hashGetAll(this.keys.workspace(teamId));
    if (fields[FIELD.apiKey] === undefined) return null;
    return {
      last4: fields[FIELD.last4] ?? '',
      verifiedAt: new Date(Number(fields[FIELD.verifiedAt] ?? 0)),
      verifiedBy: fields[FIELD.verifiedBy] ?? '',
    };
  }

  /**
   * Whether the store knows the workspace: it has a hook token or an API key. Only uninstalling forgets it, so
   * work queued for a workspace that is not known any more is dropped.
   */
  async exists(teamId: string): Promise<boolean> {
    return (await this.kv.hashLen(this.keys.workspace(teamId))) > 0;
  }

  /** Forgets everything about the workspace: API key, connection details and hook tokens (which stop resolving). */
  async clear(teamId: string): Promise<void> {
    const key = this.keys.workspace(teamId);
    const fields = await this.kv.hashGetAll(key);
    await this.kv.del(key);
    const hashes = [fields[FIELD.hookTokenHash], ...parseRetired(fields[FIELD.retiredHookTokens]).map((r) => r.hash)];
    for (const hash of hashes) if (hash !== undefined) await this.kv.del(this.keys.hookToken(hash));
  }

  /**
   * Issues a new hook token for the workspace and returns it. A previous token stops resolving. The token is
   * a secret: put it only in the hookUrl sent to the platform.
   */
  async createHookToken(teamId: string): Promise<string> {
    const token = randomBytes(HOOK_TOKEN_BYTES).toString('base64url');
    const hash = sha256Hex(token);
    const key = this.keys.workspace(teamId);
    const previousHash = await this.kv.hashGet(key, FIELD.hookTokenHash);
    // Mapping first: a token must never be handed out before it resolves.
    await this.kv.set(this.keys.hookToken(hash), teamId);
    await this.kv.hashSet(key, {
      [FIELD.hookToken]: this.secrets.seal(token, hookTokenContext(teamId)),
      [FIELD.hookTokenHash]: hash,
    });
    if (previousHash !== null && previousHash !== hash) await this.kv.del(this.keys.hookToken(previousHash));
    return token;
  }

  /**
   * Replaces the workspace's hook token with a new one (or creates the first). The replaced token keeps
   * resolving for `graceMs`, and is remembered until `markRetiredCleared` names it, so that hooks the platform
   * still has registered with it can be removed by this or a later rotation. Returns the new token and every
   * remembered token not cleared yet. Callers serialize rotations of one workspace.
   */
  async rotateHookToken(teamId: string, graceMs: number): Promise<{ token: string; retired: RetiredHookToken[] }> {
    const key = this.keys.workspace(teamId);
    const fields = await this.kv.hashGetAll(key);
    const now = this.now();
    let retired = parseRetired(fields[FIELD.retiredHookTokens]).filter((r) => !(r.cleared && r.until <= now));
    const sealed = fields[FIELD.hookToken];
    const hash = fields[FIELD.hookTokenHash];
    if (sealed !== undefined && hash !== undefined) {
      retired.push({ sealed, hash, until: now + graceMs, cleared: false });
      // The lookup entry also expires by itself; `until` is what resolving checks.
      if (graceMs > 0) await this.kv.expire(this.keys.hookToken(hash), graceMs);
      else await this.kv.del(this.keys.hookToken(hash));
    }
    for (const gone of retired.slice(0, -RETIRED_KEPT)) await this.kv.del(this.keys.hookToken(gone.hash));
    retired = retired.slice(-RETIRED_KEPT);

    const token = randomBytes(HOOK_TOKEN_BYTES).toString('base64url');
    const newHash = sha256Hex(token);
    await this.kv.set(this.keys.hookToken(newHash), teamId);
    await this.kv.hashSet(key, {
      [FIELD.hookToken]: this.secrets.seal(token, hookTokenContext(teamId)),
      [FIELD.hookTokenHash]: newHash,
      [FIELD.retiredHookTokens]: JSON.stringify(retired),
    });
    const open = retired
      .filter((r) => !r.cleared)
      .map((r) => ({ token: this.secrets.open(r.sealed, hookTokenContext(teamId)), until: r.until }));
    return { token, retired: open };
  }

  /** Rotated-out tokens the platform has no more hooks registered with: forgotten once their grace is over. */
  async markRetiredCleared(teamId: string, tokens: readonly string[]): Promise<void> {
    if (tokens.length === 0) return;
    const key = this.keys.workspace(teamId);
    const hashes = new Set(tokens.map(sha256Hex));
    const retired = parseRetired(await this.kv.hashGet(key, FIELD.retiredHookTokens));
    const marked = retired.map((r) => (hashes.has(r.hash) ? { ...r, cleared: true } : r));
    await this.kv.hashSet(key, { [FIELD.retiredHookTokens]: JSON.stringify(marked) });
  }

  /** The workspace's current hook token (to rebuild its hookUrl), or null if none was created. */
  async getHookToken(teamId: string): Promise<string | null> {
    const sealed = await this.kv.hashGet(this.keys.workspace(teamId), FIELD.hookToken);
    return sealed === null ? null : this.secrets.open(sealed, hookTokenContext(teamId));
  }

  /**
   * The team id a webhook token belongs to, or null for an unknown, replaced or malformed token. A token
   * replaced by `rotateHookToken` still resolves until its grace period is over.
   */
  async resolveHookToken(token: string): Promise<string | null> {
    if (!HOOK_TOKEN_PATTERN.test(token)) return null;
    const hash = sha256Hex(token);
    const teamId = await this.kv.get(this.keys.hookToken(hash));
    if (teamId === null) return null;
    // The mapping is only trusted while the workspace still names this token as its current one, or as one
    // rotated out and still in its grace period (a replaced token whose mapping removal failed must not keep
    // working). Compared in constant time on principle.
    const key = this.keys.workspace(teamId);
    const current = await this.kv.hashGet(key, FIELD.hookTokenHash);
    if (current === null) return null;
    if (sameHash(current, hash)) return teamId;
    const retired = parseRetired(await this.kv.hashGet(key, FIELD.retiredHookTokens)).find((r) =>
      sameHash(r.hash, hash),
    );
    return retired !== undefined && retired.until > this.now() ? teamId : null;
  }
}

function parseRetired(raw: string | null | undefined): Retired[] {
  if (!raw) return [];
  try {
    return retiredSchema.safeParse(JSON.parse(raw)).data ?? [];
  } catch {
    return [];
  }
}

/**
 * The sealed fields of a workspace hash, each with the associated data it is bound to. `npm run rekey`
 * re-seals exactly these: a new sealed field must be listed here.
 */
export function sealedWorkspaceFields(teamId: string): Readonly<Record<string, string>> {
  return { [FIELD.apiKey]: apiKeyContext(teamId), [FIELD.hookToken]: hookTokenContext(teamId) };
}

// Associated data: the team id plus what the value is, so values cannot be swapped between fields either.
function apiKeyContext(teamId: string): string {
  return `api-key:${teamId}`;
}

function hookTokenContext(teamId: string): string {
  return `hook-token:${teamId}`;
}
