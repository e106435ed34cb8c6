/**
 * Attachment downloads are shared fairly: one link takes at most 4 at once, one workspace 16, the process 64;
 * past a share, 503 + Retry-After. Readers that stop reading give their places up once their download has not
 * moved for 30 s (the route's clock, moved here instead of waited). Two installed workspaces (OAuth), the route
 * on a server of its own so the test holds its clock, a real Redis store, the Slack stand-in serving the files.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentRoute } from '../../src/handoff/index.js';
import { TEAM_ID, startHarness, type Harness } from '../support/harness.js';
import { installApp } from '../support/oauth.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();

const MB = 1024 * 1024;
const OTHER_TEAM = 'T0OTHERWS01';

let h: Harness;
let server: Server;
let base: string;
/** Added to the route's clock (the one idleness is judged by). */
let skewMs = 0;
/** Its own connections, one per reader: a reader that reads nothing holds its connection. */
const readers = new Agent({ connections: 200 });

beforeAll(async () => {
  h = await startHarness({ oauth: true, redisUrl: redis.url, keyPrefix: `${redis.prefix}shares:` });
  await installApp(h, TEAM_ID);
  await installApp(h, OTHER_TEAM);
  const route = attachmentRoute(h.bot.deps, { now: () => Date.now() + skewMs });
  server = createServer((req, res) => {
    const token = /^\/attachments\/([^/?]*)/.exec(req.url ?? '')?.[1] ?? '';
    route.handler(Object.assign(req, { params: { token } }), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/attachments/`;
});
afterAll(async () => {
  await readers.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

/** A new link to a file of `teamId` (25 MB: more than sockets buffer, so a reader that stops holds it). */
async function link(teamId: string, data: Buffer): Promise<string> {
  const file = h.slack.addFile({ name: 'site-plan.bin', mimetype: 'application/octet-stream', data, teamId });
  const record = { id: file.id, name: file.name, mimetype: file.mimetype, size: file.size };
  return `${base}${await h.bot.deps.store.attachments.create(teamId, record, 60 * 60_000)}`;
}

/** Opens `url` and reads nothing past the headers. */
async function stall(url: string) {
  return request(url, { dispatcher: readers });
}

describe('attachment downloads shared fairly', () => {
  it('64 stalled readers of one link leave every other link answering, and give their places up when idle', async () => {
    const data = randomBytes(25 * MB);
    const hot = await link(TEAM_ID, data);

    const opened = await Promise.all(Array.from({ length: 64 }, () => stall(hot)));
    const held = opened.filter((r) => r.statusCode === 200);
    const refused = opened.filter((r) => r.statusCode !== 200);
    expect(held).toHaveLength(4);
    expect(refused.map((r) => [r.statusCode, r.headers['retry-after']])).toEqual(
      Array.from({ length: 60 }, () => [503, '5']),
    );
    await Promise.all(refused.map((r) => r.body.dump()));

    // The same workspace's other links take the rest of its share: 16 in all, then 503.
    const more = await Promise.all([1, 2, 3].map(() => link(TEAM_ID, data)));
    const others = await Promise.all(more.flatMap((url) => [1, 2, 3, 4].map(() => stall(url))));
    expect(others.map((r) => r.statusCode)).toEqual(Array.from({ length: 12 }, () => 200));
    held.push(...others);
    const fifth = await fetch(await link(TEAM_ID, data));
    expect([fifth.status, fifth.headers.get('retry-after')]).toEqual([503, '5']);

    // Another workspace's link answers at once, its bytes whole.
    const small = randomBytes(64 * 1024);
    const theirs = await fetch(await link(OTHER_TEAM, small));
    expect(theirs.status).toBe(200);
    expect(Buffer.from(await theirs.arrayBuffer()).equals(small)).toBe(true);

    // The stalled readers' downloads stop moving; past 30 s without progress they are cut off and their places
    // free (the route's clock moved on until the hot link answers again).
    // Every held reader is cut off (the route says so in its log) before any body is read: reading one still
    // held would resume its download, and the hot link answers as soon as its own four are cut.
    const cutOff = () =>
      h
        .logs()
        .split('\n')
        .filter((l) => l.includes('the download stopped before the end')).length;
    await waitFor(async () => {
      skewMs += 31_000;
      return (await fetch(hot, { method: 'HEAD' })).status === 200 && cutOff() >= held.length;
    }, 'the hot link answering again, every stalled reader cut off');
    // What they had not read yet was all they get: the download ends short of the file.
    const ends = await Promise.all(
      held.map((r) =>
        r.body.arrayBuffer().then(
          () => 'whole',
          () => 'cut off',
        ),
      ),
    );
    expect(ends).toEqual(Array.from({ length: 16 }, () => 'cut off'));
    const again = await fetch(hot);
    expect(again.status).toBe(200);
    expect(Buffer.from(await again.arrayBuffer()).equals(data)).toBe(true);
  });
});
