/**
 * Files in an agent's thread reply reach the customer as links, end to end on both store backends: the
 * platform receives `attachments` (one `PUBLIC_URL/attachments/<token>` per file), opening a link streams the
 * Slack file's exact bytes — fetched with the bot token, through Slack's redirect to its CDN — and every link
 * that opens nothing (guessed, malformed, expired, its file deleted) is the same 404. Files that can't go (too
 * large, a Drive link, deleted) are told to their author alone; the store never holds a link's token.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentRoute } from '../../src/handoff/index.js';
import { waitFor } from '../support/wait.js';
import { PUBLIC_URL, startEventsHarness } from '../events/support.js';
import { MEMBER_ID, TEAM_ID, type Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { holding, memoryText, redisText } from '../support/stored-text.js';
import {
  notices,
  openConversation,
  privateNotices,
  reactions,
  retryValue,
  sends,
  type Conversation,
} from './support.js';

const redis = await requireRedis();

const MB = 1024 * 1024;
const DAY_MS = 86_400_000;
const LINK = new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}/attachments/([A-Za-z0-9_-]{43})$`);

describe.each(['memory', 'redis'] as const)('files in handoff replies (%s store)', (backend) => {
  let h: Harness;
  /** Added to the bot's clock (the one links expire by). */
  let skewMs = 0;

  beforeAll(async () => {
    h = await startEventsHarness({
      ...(backend === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}attachments:` } : {}),
      // What Slack does for many files: the file host answers the bot's token with a redirect to its CDN.
      slack: { fileDownloads: 'cdn-redirect' },
      bot: { now: () => Date.now() + skewMs },
      unlimitedSlackBecause: 'files and links, not pace: each test posts a card, lines and notices in one channel',
    });
  });
  afterAll(async () => {
    await h.close();
  });

  /** A conversation with a linked session, waiting for an answer. */
  async function linked(channels = 1): Promise<{ conv: Conversation; sessionId: string; card: { ts: string } }> {
    const conv = await openConversation(h, { channels });
    await conv.customer('Can you send me the form?');
    const sessionId = conv.session();
    for (const channel of conv.channels) await conv.linkSession(sessionId, channel);
    return { conv, sessionId, card: await conv.card() };
  }

  /** The local address of a link the platform was sent, and its token. */
  function local(link: string): { url: string; token: string } {
    const token = LINK.exec(link)?.[1];
    if (!token) throw new Error(`not an attachment link: ${link}`);
    return { url: `${h.url}/attachments/${token}`, token };
  }

  const stored = () =>
    backend === 'memory'
      ? memoryText(h.bot.deps.store, [TEAM_ID])
      : redisText(redis.redis, h.bot.deps.store.keys.prefix);

  it('sends a file as a link that streams exactly its bytes from Slack, and keeps no token', async () => {
    const { conv, sessionId } = await linked(2);
    const [channel, other] = conv.channels as [string, string];
    const data = randomBytes(3 * MB + 17);
    const file = h.slack.addFile({ name: 'Reçu « mars ».pdf', mimetype: 'application/pdf', data });
    const ts = await conv.reply('Here is the form', { extra: { subtype: 'file_share', files: [file] } });
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('white_check_mark'));

    const [sent] = sends(h, conv.campaignId).map((r) => r.body as Record<string, unknown>);
    expect(sent).toEqual({ sessionId, message: 'Here is the form', attachments: [expect.stringMatching(LINK)] });
    const link = (sent!.attachments as string[])[0]!;
    const { url, token } = local(link);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);

    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': String(data.length),
      'content-disposition': `attachment; filename="Re_u _ mars _.pdf"; filename*=UTF-8''Re%C3%A7u%20%C2%AB%20mars%20%C2%BB.pdf`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    });
    // Fetched with the bot token from Slack's file host, then from its CDN without it.
    const downloads = h.slack.downloads.filter((d) => d.fileId === file.id);
    expect(downloads.map((d) => [d.status, d.authorized, d.cdn?.authorizationHeader])).toEqual([
      [302, true, undefined],
      [200, true, false],
    ]);
    const head = await fetch(url, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), (await head.arrayBuffer()).byteLength]).toEqual([
      200,
      String(data.length),
      0,
    ]);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);

    // The other channel's thread shows the reply and names its file (never the link).
    const mirrored = await h.slack.waitFor(() => notices(conv.thread(other), 'answered the customer from')[0]);
    expect(JSON.stringify(mirrored.blocks)).toContain('mars');
    expect(JSON.stringify(h.slack.messages())).not.toContain(token);

    const everything = await stored();
    expect(holding(everything, token)).toEqual([]);
    expect(holding(everything, link)).toEqual([]);
    if (backend === 'redis') {
      // Both keys of the link expire with it (ATTACHMENT_TTL_S, a day by default).
      const keys = [...everything.keys()].filter((k) => /:attachment(-token)?:/.test(k));
      expect(keys).toHaveLength(2);
      for (const key of keys) {
        const ttl = await redis.redis.pttl(key);
        expect([key, ttl > 0 && ttl <= DAY_MS]).toEqual([key, true]);
      }
    }
    expect(h.logs()).not.toContain(token);
  });

  it('sends an HTML file as a download of exactly its bytes, not mistaken for Slack’s sign-in page', async () => {
    const { conv } = await linked();
    const page = Buffer.from(
      '<!doctype html><html><body><h1>Your itinerary</h1><script>alert(1)</script></body></html>\n',
    );
    const file = h.slack.addFile({ name: 'itinerary.html', mimetype: 'text/html', data: page });
    await conv.reply('Your itinerary', { extra: { subtype: 'file_share', files: [file] } });
    const sent = await h.slack.waitFor(() => sends(h, conv.campaignId)[0]);
    const res = await fetch(local((sent.body as { attachments: string[] }).attachments[0]!).url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(page)).toBe(true);
    // A download that never runs as a page of the bot's host.
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'text/html',
      'content-disposition': `attachment; filename="itinerary.html"; filename*=UTF-8''itinerary.html`,
      'content-security-policy': "default-src 'none'; sandbox",
      'x-content-type-options': 'nosniff',
    });
  });

  it('answers the same 404 for a guessed, a malformed and an expired link, and for a file deleted in Slack', async () => {
    const { conv } = await linked();
    const data = randomBytes(2048);
    const a = h.slack.addFile({ name: 'a.png', mimetype: 'image/png', data });
    const b = h.slack.addFile({ name: 'b.txt', mimetype: 'text/plain', data });
    await conv.reply('', { extra: { subtype: 'file_share', files: [a, b] } });
    const sent = await h.slack.waitFor(() => sends(h, conv.campaignId)[0]);
    const body = sent.body as { message: string; attachments: string[] };
    // A reply of files alone still reaches the customer: a line naming them, the files as its attachments.
    expect(body.message).toBe('Sent you 2 files: a.png, b.txt');
    const [first, second] = body.attachments.map(local);
    if (!first || !second) throw new Error('two links expected');
    expect((await fetch(first.url)).status).toBe(200);

    const answers = async (url: string) => {
      const res = await fetch(url);
      return [res.status, await res.text()];
    };
    const gone = await answers(`${h.url}/attachments/${randomBytes(32).toString('base64url')}`);
    expect(gone[0]).toBe(404);
    expect(await answers(`${h.url}/attachments/not-a-token`)).toEqual(gone);
    expect(await answers(`${h.url}/attachments/%E0%A4%A`)).toEqual([404, '']);

    h.slack.expectRefusal('files.info', 'file_deleted');
    h.slack.deleteFile(b.id);
    expect(await answers(second.url)).toEqual(gone);

    skewMs = DAY_MS + 1_000;
    try {
      expect(await answers(first.url)).toEqual(gone);
    } finally {
      skewMs = 0;
    }
    expect((await fetch(first.url)).status).toBe(200);
  });

  it('does not link a 30 MB file: its author is told, and the text still goes', async () => {
    const { conv, card } = await linked();
    const channel = conv.channels[0]!;
    const big = h.slack.addFile({ name: 'walkthrough.mp4', mimetype: 'video/mp4', data: Buffer.alloc(30 * MB) });
    const small = h.slack.addFile({ name: 'map.png', mimetype: 'image/png', data: randomBytes(100) });
    const ts = await conv.reply('Directions attached', { extra: { subtype: 'file_share', files: [big, small] } });
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('white_check_mark'));
    const notice = await h.slack.waitFor(() => privateNotices(h, channel, card.ts, MEMBER_ID, 'walkthrough.mp4')[0]);
    expect(JSON.stringify(notice.blocks)).toContain('30 MB');
    expect(JSON.stringify(notice.blocks)).toContain('at most 25 MB');
    const body = sends(h, conv.campaignId)[0]!.body as { message: string; attachments: string[] };
    expect(body.message).toBe('Directions attached');
    expect(body.attachments).toHaveLength(1);
    expect(h.slack.downloads.filter((d) => d.fileId === big.id)).toEqual([]);

    // Only the big file: nothing reaches the customer, the reply gets ⚠️.
    const only = await conv.reply('', { extra: { subtype: 'file_share', files: [big] } });
    await h.slack.waitFor(() => reactions(h, channel, only).includes('warning'));
    await h.slack.waitFor(() => privateNotices(h, channel, card.ts, MEMBER_ID, 'Nothing was sent')[0]);
    expect(sends(h, conv.campaignId)).toHaveLength(1);
    expect(notices(conv.thread(), 'walkthrough.mp4')).toEqual([]);
  });

  it('refuses a Drive link and a deleted file by name, and asks Slack about a file the event only names', async () => {
    const { conv, card } = await linked();
    const channel = conv.channels[0]!;
    const shared = h.slack.addFile({ name: 'price-list.csv', mimetype: 'text/csv', data: Buffer.from('a,b\n1,2\n') });
    const drive = { ...shared, id: 'F0DRIVE01', name: 'Plan.gdoc', mode: 'external', is_external: true };
    const deleted = { id: 'F0GONE001', name: 'old.pdf', mode: 'tombstone' };
    // A Slack Connect channel's file: the event names it only (https://docs.slack.dev/reference/events/file_shared).
    const named = {
      id: shared.id,
      mode: 'file_access',
      file_access: 'check_file_info',
      created: 0,
      timestamp: 0,
      user: '',
    };
    await conv.reply('See attached', { extra: { subtype: 'file_share', files: [drive, deleted, named] } });
    const sent = await h.slack.waitFor(() => sends(h, conv.campaignId)[0]);
    expect((sent.body as { attachments: string[] }).attachments).toHaveLength(1);
    expect(h.slack.callsTo('files.info').some((c) => c.args.file === shared.id)).toBe(true);
    const notice = await h.slack.waitFor(() => privateNotices(h, channel, card.ts, MEMBER_ID, 'Plan.gdoc')[0]);
    const text = JSON.stringify(notice.blocks);
    expect(text).toContain('link to another service');
    expect(text).toContain('old.pdf');
    expect(text).toContain('deleted from Slack');
    expect(text).not.toContain('price-list.csv');
  });

  it('sends the files again, with new links, when a reply not sent is sent again', async () => {
    const conv = await openConversation(h);
    const channel = conv.channels[0]!;
    await conv.customer('Form please');
    const card = await conv.card();
    const file = h.slack.addFile({ name: 'form.pdf', mimetype: 'application/pdf', data: randomBytes(500) });
    const ts = await conv.reply('Here it is', { extra: { subtype: 'file_share', files: [file] } });
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('warning'));
    const notice = await h.slack.waitFor(() => privateNotices(h, channel, card.ts, MEMBER_ID, 'Send again')[0]);
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    await conv.press(notice.ts, { ephemeral: true, value: retryValue(notice) });
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('white_check_mark'));
    const body = sends(h, conv.campaignId)[0]!.body as { message: string; attachments: string[] };
    expect(body.message).toBe('Here it is');
    const res = await fetch(local(body.attachments[0]!).url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain("filename*=UTF-8''form.pdf");
  });

  it('serves a bounded number of downloads at once: past it, 503 with Retry-After until one ends', async () => {
    // The route on a server of its own, allowing one download at a time (the bot's allows 64).
    const route = attachmentRoute(h.bot.deps, { caps: { perProcess: 1 } });
    const server = createServer((req, res) => {
      const token = /^\/attachments\/([^/?]*)/.exec(req.url ?? '')?.[1] ?? '';
      route.handler(Object.assign(req, { params: { token } }), res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/attachments/`;
      const data = randomBytes(25 * MB);
      const file = h.slack.addFile({ name: 'site-plan.bin', mimetype: 'application/octet-stream', data });
      const link = { id: file.id, name: file.name, mimetype: file.mimetype, size: file.size };
      const token = await h.bot.deps.store.attachments.create(TEAM_ID, link, 60_000);
      // A client that takes the headers and reads no further holds its download open.
      const slow = await request(`${base}${token}`);
      expect(slow.statusCode).toBe(200);
      const busy = await fetch(`${base}${token}`);
      expect([busy.status, busy.headers.get('retry-after')]).toEqual([503, '5']);
      slow.body.destroy();
      await waitFor(async () => (await fetch(`${base}${token}`, { method: 'HEAD' })).status === 200, 'a free place');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
