/**
 * Posting to a `response_url` outside a listener's own `respond()` (e.g. after a modal closes).
 * The URL comes from a Slack payload we issued or received signed; it is never user-typed.
 */
import type { Logger } from '../logger.js';

export async function postToResponseUrl(url: string, payload: Record<string, unknown>, logger: Logger): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(10_000),
    });
    await res.body?.cancel();
    if (!res.ok) logger.warn({ status: res.status }, 'Slack rejected a response_url post');
    return res.ok;
  } catch (err) {
    logger.warn({ err }, 'could not post to a response_url');
    return false;
  }
}
