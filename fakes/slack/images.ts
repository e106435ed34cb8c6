/**
 * Slack downloads every image URL in a message or view and refuses the whole payload when one fails:
 * `invalid_blocks` with `[ERROR] downloading image failed [json-pointer:/blocks/0/image_url]`
 * (seen in slackapi/node-slack-sdk#1693 and slackapi/python-slack-sdk#1782).
 *
 * The stand-in reaches no network: only loopback URLs are fetched (so a test can serve a real image);
 * any other host counts as unreachable, which is what a URL Slack can't download gets.
 */
import { imageUrls } from './block-kit.js';
import { isObj } from './util.js';

const FETCH_TIMEOUT_MS = 2_000;
const LOOPBACK = /^(127(?:\.\d{1,3}){3}|localhost|\[::1\])$/i;

/** Image URLs of a message payload or a view, with Slack's JSON pointers. */
export function payloadImages(
  payload: Record<string, unknown>,
  kind: 'message' | 'view',
): { url: string; pointer: string }[] {
  if (kind === 'view') return isObj(payload.view) ? imageUrls(payload.view.blocks, '/view/blocks') : [];
  const found = imageUrls(payload.blocks, '/blocks');
  if (Array.isArray(payload.attachments)) {
    payload.attachments.forEach((a, i) => {
      if (isObj(a)) found.push(...imageUrls(a.blocks, `/attachments/${i}/blocks`));
    });
  }
  return found;
}

/** Slack's messages for the images it could not download; empty when every one resolved to an image. */
export async function imageDownloadErrors(images: { url: string; pointer: string }[]): Promise<string[]> {
  const results = await Promise.all(
    images.map(async ({ url, pointer }) => ((await downloads(url)) ? undefined : pointer)),
  );
  return results
    .filter((p): p is string => p !== undefined)
    .map((p) => `[ERROR] downloading image failed [json-pointer:${p}]`);
}

async function downloads(raw: string): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !LOOPBACK.test(url.hostname)) return false;
  try {
    const res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    await res.arrayBuffer();
    return res.ok && (res.headers.get('content-type') ?? '').toLowerCase().startsWith('image/');
  } catch {
    return false;
  }
}
