import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
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
} as const;

/** 256 random bits, base64url (43 characters). */
const HOOK_TOKEN_BYTES = 32;
const HOOK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/**
 * Per-workspace settings: the platform API key (encrypted, bound to the team id) with who verified it and
 * when, and the webhook token that identifies the workspace in `POST /hooks/<token>`.
 *
 * The hook token is stored twice: as SHA-256 hash → team id (what an incoming webhook is resolved with, so a
 * Redis dump does not hand out working hook URLs) and encrypted on the workspace (so the bot can rebuild the
 * hookUrl it subscribed with, which unsubscribe needs).
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

  /** Forgets everything about the workspace: API key, connection details and hook token (which stops resolving). */
  async clear(teamId: string): Promise<void> {
    const key = this.keys.workspace(teamId);
    const hash = await this.kv.hashGet(key, FIELD.hookTokenHash);
    await this.kv.del(key);
    if (hash !== null) await this.kv.del(this.keys.hookToken(hash));
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

  /** The workspace's current hook token (to rebuild its hookUrl), or null if none was created. */
  async getHookToken(teamId: string): Promise<string | null> {
    const sealed = await this.kv.hashGet(this.keys.workspace(teamId), FIELD.hookToken);
    return sealed === null ? null : this.secrets.open(sealed, hookTokenContext(teamId));
  }

  /** The team id a webhook token belongs to, or null for an unknown, replaced or malformed token. */
  async resolveHookToken(token: string): Promise<string | null> {
    if (!HOOK_TOKEN_PATTERN.test(token)) return null;
    const hash = sha256Hex(token);
    const teamId = await this.kv.get(this.keys.hookToken(hash));
    if (teamId === null) return null;
    // The mapping is only trusted while the workspace still names this token as its current one (a replaced
    // token whose mapping removal failed must not keep working). Compared in constant time on principle.
    const current = await this.kv.hashGet(this.keys.workspace(teamId), FIELD.hookTokenHash);
    if (current === null) return null;
    const a = Buffer.from(current, 'hex');
    const b = Buffer.from(hash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b) ? teamId : null;
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
