/**
 * `/campaign connect` and the admin gate, on both store backends: the key is verified with the
 * platform, stored encrypted, and then used for the workspace's calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ID, MEMBER_ID, startHarness, type Harness, useHarness, storeOn } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';

const redis = await requireRedis();

const NEW_KEY = 'ck_live_second_key_9f8e7d6c5b4a39281706';

describe.each(['memory', 'redis'] as const)('connect (%s store)', (backend) => {
  const h = useHarness(async () => {
    const started = await startHarness({
      defaultApiKey: false,
      ...storeOn(backend, redis, `${redis.prefix}${backend}:`),
    });
    started.platform.addApiKey(NEW_KEY, { CompanyName: 'Second Co' });
    return started;
  });

  it('tells members to ask an admin while the workspace has no key', async () => {
    await h.signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: 'nokey' });
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'nokey'));
    expect(answer.body.text).toContain('ask a Slack admin to run `/campaign connect`');
    expect(h.platform.requests).toHaveLength(0);
  });

  it('refuses non-admins with one sentence and opens no modal', async () => {
    await h.signer.command({ text: 'connect', userId: MEMBER_ID, responseUrlId: 'notadmin' });
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'notadmin'));
    expect(answer.body.text).toContain('Only Slack workspace admins and owners');
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
  });

  it('puts a rejected key back on the field', async () => {
    await h.signer.command({ text: 'connect', userId: ADMIN_ID, responseUrlId: 'c1' });
    await h.slack.waitFor(() => h.slack.views('connect_modal').length > 0);
    const res = await h.signer.viewSubmission({
      callbackId: 'connect_modal',
      userId: ADMIN_ID,
      values: { api_key: { value: { type: 'plain_text_input', value: 'ck_wrong_key_123456' } } },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      response_action: 'errors',
      errors: { api_key: expect.stringContaining('rejected this key') },
    });
    expect(await h.bot.deps.store.workspaces.getApiKey(h.signer.teamId)).toBeNull();
  });

  it('verifies a good key, stores it encrypted, confirms with the last 4 only, and uses it', async () => {
    await h.signer.command({ text: 'connect', userId: ADMIN_ID, responseUrlId: 'c2' });
    await h.slack.waitFor(() => h.slack.views('connect_modal').length > 1);
    h.platform.reset();
    const res = await h.signer.viewSubmission({
      callbackId: 'connect_modal',
      userId: ADMIN_ID,
      values: { api_key: { value: { type: 'plain_text_input', value: `  ${NEW_KEY}  ` } } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe(''); // closes the modal
    expect(h.platform.requests[0]?.path).toBe('/open-api');
    expect(h.platform.requests[0]?.headers['api-key']).toBe(NEW_KEY);

    const confirmation = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'c2'));
    const shown = JSON.stringify(confirmation.body);
    expect(shown).toContain('••••1706');
    expect(shown).toContain('Second Co');
    expect(shown).not.toContain(NEW_KEY);

    expect(await h.bot.deps.store.workspaces.getApiKey(h.signer.teamId)).toBe(NEW_KEY);
    if (backend === 'redis') {
      const stored = await Promise.all((await redis.keys()).map(async (k) => JSON.stringify(await dump(k))));
      expect(stored.join('\n')).not.toContain(NEW_KEY);
      expect(stored.join('\n')).not.toContain(NEW_KEY.slice(0, 20));
    }

    await h.signer.command({ text: 'quota', userId: MEMBER_ID, responseUrlId: 'after' });
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'after'));
    expect(h.platform.requests.at(-1)?.headers['api-key']).toBe(NEW_KEY);
    expect(h.logs()).not.toContain(NEW_KEY);
  });
});

async function dump(key: string): Promise<unknown> {
  const type = await redis.redis.type(key);
  if (type === 'string') return redis.redis.get(key);
  if (type === 'hash') return redis.redis.hgetall(key);
  if (type === 'set') return redis.redis.smembers(key);
  if (type === 'list') return redis.redis.lrange(key, 0, -1);
  if (type === 'stream') return redis.redis.xrange(key, '-', '+');
  return type;
}

describe('connect from App Home, day one', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ defaultApiKey: false });
    h.platform.addApiKey(NEW_KEY, { CompanyName: 'Second Co' });
  });
  afterAll(async () => {
    await h.close();
  });

  async function published(n: number) {
    const call = await h.slack.waitFor(() => h.slack.callsTo('views.publish')[n]);
    expect(call.response.ok).toBe(true);
    return { call, text: JSON.stringify(call.args.view) };
  }

  it('says connected in the modal and republishes Home showing the connection', async () => {
    await h.signer.event({ type: 'app_home_opened', user: ADMIN_ID, tab: 'home', channel: 'D0HOME0001' });
    const before = await published(0);
    expect(before.text).toContain('Not connected to the platform yet');
    const homeViewId = (before.call.response.view as { id: string }).id;

    await h.signer.blockAction({ actionId: 'home_connect', viewId: homeViewId, userId: ADMIN_ID });
    const modal = await h.slack.waitFor(() => h.slack.views('connect_modal')[0]);
    const res = await h.signer.viewSubmission({
      callbackId: 'connect_modal',
      userId: ADMIN_ID,
      values: { api_key: { value: { type: 'plain_text_input', value: NEW_KEY } } },
    });
    expect(res.status).toBe(200);
    // Opened from Home there is no channel to answer in: the modal itself says how it went.
    const ack = res.json as { response_action: string; view: Record<string, unknown> };
    expect(ack.response_action).toBe('update');
    const final = JSON.stringify(ack.view);
    expect(final).toContain('connected this workspace');
    expect(final).toContain('••••1706');
    expect(final).not.toContain(NEW_KEY);
    expect(h.slack.replaceView(modal.view.id, ack.view).ok).toBe(true);

    const after = await published(1);
    expect(after.call.args.user_id).toBe(ADMIN_ID);
    expect(after.text).toContain('Connected to the platform with key `••••1706`');
    expect(after.text).not.toContain(NEW_KEY);
    expect(await h.bot.deps.store.workspaces.getApiKey(h.signer.teamId)).toBe(NEW_KEY);
  });
});
