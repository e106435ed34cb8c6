/**
 * Bolt's `InstallationStore` over our store (OAuth multi-workspace mode): one installation per
 * workspace — or per Enterprise Grid org for org-wide installs — sealed with AES-256-GCM, because an
 * installation holds the bot token (and refresh token when token rotation is on).
 *
 * With several replicas, whichever stores last wins; a rotated token written by one replica is read by
 * all on their next request, since nothing is cached in process.
 */
import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import type { SecretBox } from './secrets.js';

type AnyInstallation = Installation<'v1' | 'v2', boolean>;

export class InstallationRepo implements InstallationStore {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly secrets: SecretBox,
  ) {}

  async storeInstallation<AuthVersion extends 'v1' | 'v2'>(
    installation: Installation<AuthVersion, boolean>,
  ): Promise<void> {
    const key = this.keyFor({
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
    });
    await this.kv.set(key, this.secrets.seal(JSON.stringify(installation), context(key)));
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<AnyInstallation> {
    const key = this.keyFor(query);
    const sealed = await this.kv.get(key);
    // Bolt turns a throw here into "authorization failed" for that request, which is what we want.
    if (sealed === null) throw new Error('no installation for this workspace');
    return JSON.parse(this.secrets.open(sealed, context(key))) as AnyInstallation;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.kv.del(this.keyFor(query));
  }

  /** The bot token of a workspace, or null when the app is not installed there. */
  async botToken(teamId: string, enterpriseId?: string): Promise<string | null> {
    for (const query of [
      { teamId, enterpriseId, isEnterpriseInstall: false },
      ...(enterpriseId ? [{ teamId: undefined, enterpriseId, isEnterpriseInstall: true }] : []),
    ]) {
      const sealed = await this.kv.get(this.keyFor(query));
      if (sealed !== null) {
        const installation = JSON.parse(this.secrets.open(sealed, context(this.keyFor(query)))) as AnyInstallation;
        if (installation.bot?.token) return installation.bot.token;
      }
    }
    return null;
  }

  private keyFor(q: {
    isEnterpriseInstall?: boolean;
    teamId?: string | undefined;
    enterpriseId?: string | undefined;
  }): string {
    if (q.isEnterpriseInstall && q.enterpriseId) return this.keys.installation('org', q.enterpriseId);
    if (!q.teamId) throw new Error('installation query without a team id');
    return this.keys.installation(q.teamId, q.enterpriseId);
  }
}

/** Associated data of the installation stored under `key` (also used by `npm run rekey`). */
export function installationContext(key: string): string {
  return context(key);
}

function context(key: string): string {
  return `installation:${key}`;
}
