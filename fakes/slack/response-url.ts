/** response_urls: 5 uses within 30 minutes; replace_original / delete_original / in_channel effects. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { addEphemeral, botMessage, contentError } from './chat.js';
import { imageDownloadErrors, payloadImages } from './images.js';
import type { SlackState } from './state.js';
import type { ResponseUrlContext, ResponseUrlPost } from './types.js';
import { clone, hex, isObj, str, type Json } from './util.js';

const RESPONSE_URL_TTL_MS = 30 * 60_000;

export function responseUrl(s: SlackState, id?: string, ctx: ResponseUrlContext = {}): string {
  s.responseUrlCounter += 1;
  const key = hex(12);
  const theId = id ?? `r${s.responseUrlCounter}`;
  const url = `${s.baseUrl}/commands/${s.teamId}/${1_000_000 + s.responseUrlCounter}/${key}`;
  s.responseUrls.set(key, { id: theId, url, uses: 0, createdAt: s.expiryNow(), ctx });
  return url;
}

export async function handleResponseUrl(
  s: SlackState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  body: Buffer,
): Promise<void> {
  const key = path.split('/').pop() ?? '';
  const entry = s.responseUrls.get(key);
  const reply = (status: number, text: string): void => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(text);
  };
  if (!entry || req.method !== 'POST') {
    reply(404, 'invalid_url');
    return;
  }
  let parsed: unknown;
  const ct = (req.headers['content-type'] ?? '').toLowerCase();
  try {
    const raw = body.toString('utf8');
    parsed = ct.startsWith('application/x-www-form-urlencoded')
      ? (JSON.parse(new URLSearchParams(raw).get('payload') ?? '') as unknown)
      : (JSON.parse(raw) as unknown);
  } catch {
    parsed = undefined;
  }
  const post: ResponseUrlPost = {
    id: entry.id,
    body: isObj(parsed) ? parsed : {},
    at: Date.now(),
    status: 200,
    url: entry.url,
  };
  s.responses.push(post);
  const reject = (status: number, error: string, messages?: unknown): void => {
    post.status = status;
    post.error = error;
    if (Array.isArray(messages)) post.messages = messages.map(String);
    reply(status, error);
  };
  if (!isObj(parsed)) return reject(400, 'invalid_payload');
  if (s.expiryNow() - entry.createdAt > RESPONSE_URL_TTL_MS) return reject(404, 'expired_url');
  if (entry.uses >= (s.opts.responseUrlMaxUses ?? 5)) return reject(404, 'used_url');
  const isDelete = parsed.delete_original === true || parsed.delete_original === 'true';
  if (!isDelete) {
    const err = contentError(parsed, true);
    if (err)
      return reject(400, String(err.error), (err.response_metadata as { messages?: unknown } | undefined)?.messages);
    const images = await imageDownloadErrors(payloadImages(parsed, 'message'));
    if (images.length > 0) return reject(400, 'invalid_blocks', images);
  }
  entry.uses += 1;
  applyResponseUrlEffects(s, entry.ctx, parsed, isDelete);
  reply(200, 'ok');
}

function applyResponseUrlEffects(s: SlackState, ctx: ResponseUrlContext, body: Json, isDelete: boolean): void {
  const channel = ctx.channelId;
  if (!channel) return;
  const ownEphemeral =
    ctx.ephemeralTs === undefined
      ? undefined
      : s.ephemeralList.find((e) => e.channel === channel && e.ts === ctx.ephemeralTs);
  if (ownEphemeral && (isDelete || body.replace_original === true || body.replace_original === 'true')) {
    // An ephemeral can't be edited through the Web API, but its own response_url replaces or removes it.
    if (isDelete) {
      s.ephemeralList = s.ephemeralList.filter((e) => e !== ownEphemeral);
      return;
    }
    ownEphemeral.text = str(body, 'text') ?? '';
    if (Array.isArray(body.blocks)) ownEphemeral.blocks = clone(body.blocks);
    else delete ownEphemeral.blocks;
    if (Array.isArray(body.attachments)) ownEphemeral.attachments = clone(body.attachments);
    else delete ownEphemeral.attachments;
    ownEphemeral.at = Date.now();
    return;
  }
  const original = ctx.messageTs ? s.findMessage(channel, ctx.messageTs) : undefined;
  if (isDelete) {
    if (original) s.removeMessage(channel, original.ts);
    return;
  }
  const replace = body.replace_original === true || body.replace_original === 'true';
  if (replace && original) {
    original.text = str(body, 'text') ?? '';
    if (Array.isArray(body.blocks)) original.blocks = clone(body.blocks);
    else delete original.blocks;
    if (Array.isArray(body.attachments)) original.attachments = clone(body.attachments);
    return;
  }
  const auth = s.tokens.get(s.botToken);
  if (body.response_type === 'in_channel' && auth) {
    const threadTs = str(body, 'thread_ts');
    s.insertMessage(botMessage(s, auth, channel, { ...body, thread_ts: threadTs }, s.nextTs()));
    return;
  }
  addEphemeral(s, { channel, user: ctx.userId ?? '', via: 'response_url' }, body);
}
