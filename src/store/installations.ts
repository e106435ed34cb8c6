/**
 * Bolt's `InstallationStore` over our store (OAuth multi-workspace mode): one installation per
 * workspace — or per Enterprise Grid org for org-wide installs — sealed with AES-256-GCM, because an
 * installation holds the bot token (and refresh token when token rotation is on).
 *
 * An org-wide install (`isEnterpriseInstall`, no team) serves every workspace of the org: a workspace's
 * installation is its own, or else its org's. Which org a workspace belongs to is learned from Slack's requests
 * (`rememberOrg`), so work outside a request (queue, timers) finds the org's installation from a team id alone.
 *
 * Token rotation: @slack/oauth's InstallProvider refreshes a bot token it is handed within two hours of its
 * expiry, then stores the new one. With several replicas each would, so the installation is handed over with its
 * refresh token to one caller only — the holder of a short lease, released when the refreshed installation is
 * stored; the others get the token as it is (still valid) without its refresh token, or, once it has expired,
 * wait for the holder's. Nothing is cached in process: a token written by one replica is read by all.
 */
import { randomUUID } from 'node:crypto';
import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { Leases } from './leases.js';
import type { SecretBox } from './secrets.js';

type AnyInstallation = Installation<'v1' | 'v2', boolean>;

/** The installation serving a workspace: Bolt's query for it. */
export type InstallationFor = InstallationQuery<boolean>;

/**
 * InstallProvider refreshes a token this close to its expiry (its `EXPIRY_WINDOW`, two hours); a minute more, so
 * whatever is handed over outside it is never refreshed by a clock a moment later.
 */
const REFRESH_WINDOW_S = 2 * 3600 + 60;
/** How long the refreshing replica holds its lease: oauth.v2.access answers in well under this. */
const REFRESH_LEASE_MS = 30_000;
/**
 * A caller whose token has expired waits this long at most for the refreshing replica's new one (Slack's
 * requests are authorized before their 3 s ack); past it, a call refused as `token_expired` is renewed then.
 */
const EXPIRED_WAIT_MS = 2_000;
const EXPIRED_POLL_MS = 100;
/** How long a workspace's org, once written, is not written again by this process. */
const ORG_REWRITE_MS = 5 * 60_000;
/** A token Slack calls expired is treated as expired this long before its `expiresAt` (clocks differ). */
const EXPIRY_MARGIN_S = 30;

export class InstallationRepo implements InstallationStore {
  /** Owner of this process's refresh leases. */
  private readonly owner = randomUUID();
  private readonly leases: Leases;
  /** Orgs this process wrote lately (saves a write per request; written again after a while: an uninstall forgets). */
  private readonly knownOrgs = new Map<string, { org: string; at: number }>();

  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly secrets: SecretBox,
  ) {
    this.leases = new Leases(kv);
  }

  async storeInstallation<AuthVersion extends 'v1' | 'v2'>(
    installation: Installation<AuthVersion, boolean>,
  ): Promise<void> {
    const key = this.keyFor({
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
    });
    await this.kv.set(key, this.secrets.seal(JSON.stringify(installation), context(key)));
    if (installation.team?.id && installation.enterprise?.id)
      await this.rememberOrg(installation.team.id, installation.enterprise.id);
    // A refreshed token stored: whoever waits for it reads it now.
    await this.leases.release(this.keys.tokenRefresh(key), this.owner);
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<AnyInstallation> {
    let key = this.keyFor(query);
    let installation = await this.read(key);
    if (!installation && !query.isEnterpriseInstall && query.enterpriseId) {
      // A payload of a workspace of the org that does not say the install is org-wide: the org's serves it.
      key = this.keyFor({ ...query, isEnterpriseInstall: true });
      installation = await this.read(key);
    }
    // Bolt turns a throw here into "authorization failed" for that request, which is what we want.
    if (!installation) throw new Error('no installation for this workspace');
    return this.handOver(key, installation);
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.kv.del(this.keyFor(query));
  }

  /** Slack said a workspace (`teamId`) belongs to an Enterprise Grid org: kept for work outside requests. */
  async rememberOrg(teamId: string, enterpriseId: string): Promise<void> {
    const known = this.knownOrgs.get(teamId);
    const now = Date.now();
    if (known?.org === enterpriseId && now - known.at < ORG_REWRITE_MS) return;
    await this.kv.set(this.keys.workspaceOrg(teamId), enterpriseId);
    if (this.knownOrgs.size > 10_000) this.knownOrgs.clear();
    this.knownOrgs.set(teamId, { org: enterpriseId, at: now });
  }

  /** The org a workspace belongs to, when Slack said so. */
  async orgOf(teamId: string): Promise<string | undefined> {
    return (await this.kv.get(this.keys.workspaceOrg(teamId))) ?? undefined;
  }

  /**
   * Which installation serves a workspace: its own, else its org's (org-wide install); undefined when the app is
   * not installed there.
   */
  async queryFor(teamId: string, enterpriseId?: string): Promise<InstallationFor | undefined> {
    const org = enterpriseId ?? (await this.orgOf(teamId));
    const own = { teamId, enterpriseId: org, isEnterpriseInstall: false };
    if ((await this.kv.get(this.keyFor(own))) !== null) return own;
    const orgWide = { teamId, enterpriseId: org, isEnterpriseInstall: true };
    if (org && (await this.kv.get(this.keyFor(orgWide))) !== null) return orgWide;
    return undefined;
  }

  /** The installation serving a workspace, as stored (nothing refreshed). */
  async find(teamId: string, enterpriseId?: string): Promise<AnyInstallation | undefined> {
    const query = await this.queryFor(teamId, enterpriseId);
    return query && this.read(this.keyFor(query));
  }

  /** The bot token of a workspace as stored, or null when the app is not installed there. */
  async botToken(teamId: string, enterpriseId?: string): Promise<string | null> {
    return (await this.find(teamId, enterpriseId))?.bot?.token ?? null;
  }

  /**
   * Slack refused `token` as expired before the expiry it was given with (clocks differ): it is due now, so the
   * next `fetchInstallation` has it refreshed. Nothing changes when it was replaced already.
   */
  async expired(query: InstallationFor, token: string): Promise<void> {
    const key = this.keyFor(query);
    const installation = await this.read(key);
    const bot = installation?.bot;
    if (!installation || !bot || bot.token !== token || bot.expiresAt === undefined) return;
    const due = Math.floor(Date.now() / 1000) - EXPIRY_MARGIN_S;
    if (bot.expiresAt <= due) return;
    installation.bot = { ...bot, expiresAt: due };
    await this.kv.set(key, this.secrets.seal(JSON.stringify(installation), context(key)));
  }

  /** What InstallProvider gets: a rotating token due for refresh goes with its refresh token to one caller only. */
  private async handOver(key: string, installation: AnyInstallation): Promise<AnyInstallation> {
    const deadline = Date.now() + EXPIRED_WAIT_MS;
    let current = installation;
    for (;;) {
      const expiresAt = current.bot?.refreshToken ? current.bot.expiresAt : undefined;
      const nowS = Math.floor(Date.now() / 1000);
      if (expiresAt === undefined || expiresAt - nowS > REFRESH_WINDOW_S) return current;
      const lease = this.keys.tokenRefresh(key);
      if (await this.leases.claim(lease, this.owner, REFRESH_LEASE_MS)) {
        // Read again under the lease: a replica that held it before may have stored a new token since.
        const latest = (await this.read(key)) ?? current;
        if (latest.bot?.token !== current.bot?.token) await this.leases.release(lease, this.owner);
        return latest;
      }
      // Another replica (or call) is refreshing it: the token as it is, while it still works.
      if (expiresAt - nowS > EXPIRY_MARGIN_S) return withoutRefresh(current);
      if (Date.now() >= deadline) return withoutRefresh(current);
      await new Promise((resolve) => setTimeout(resolve, EXPIRED_POLL_MS));
      current = (await this.read(key)) ?? current;
    }
  }

  private async read(key: string): Promise<AnyInstallation | undefined> {
    const sealed = await this.kv.get(key);
    return sealed === null ? undefined : (JSON.parse(this.secrets.open(sealed, context(key))) as AnyInstallation);
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

/** The installation without its refresh token: InstallProvider hands its token on as it is. */
function withoutRefresh(installation: AnyInstallation): AnyInstallation {
  if (!installation.bot) return installation;
  const { refreshToken: _refreshToken, expiresAt: _expiresAt, ...bot } = installation.bot;
  return { ...installation, bot };
}

/** Associated data of the installation stored under `key` (also used by `npm run rekey`). */
export function installationContext(key: string): string {
  return context(key);
}

function context(key: string): string {
  return `installation:${key}`;
}
