/**
 * Posting to a `response_url` outside a listener's own `respond()` (e.g. after a modal closes).
 * The URL comes back from Slack — in a payload, or in a modal's `private_metadata` — so it is only POSTed
 * to Slack's hooks host: `hooks.<SLACK_DOMAIN>`, or the origin of SLACK_API_URL when that is not Slack (a
 * stand-in serves response_urls on its own origin). Anything else is refused, logged and never fetched.
 */
import type { Logger } from '../logger.js';
import { isSlackApi, slackHooksHost, type SlackHosts } from './hosts.js';

/** Whether `url` is one of Slack's response_urls for an app talking to `slack`. */
function isSlackResponseUrl(url: string, slack: SlackHosts): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.username || target.password) return false;
  if (target.protocol === 'https:' && target.host === slackHooksHost(slack)) return true;
  // Slack's own API host never serves response_urls; only a stand-in for it does, on its own origin.
  return !isSlackApi(slack) && target.origin === new URL(slack.apiUrl).origin;
}

export async function postToResponseUrl(
  url: string,
  payload: Record<string, unknown>,
  logger: Logger,
  slack: SlackHosts,
): Promise<boolean> {
  if (!isSlackResponseUrl(url, slack)) {
    let host = '(not a URL)';
    try {
      host = new URL(url).host;
    } catch {
      // logged as not a URL
    }
    logger.warn({ host }, 'refused to post to a response_url that is not Slack’s: nothing was sent');
    return false;
  }
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
