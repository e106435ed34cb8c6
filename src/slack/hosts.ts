/**
 * Every Slack host the bot talks to or trusts derives from one domain (SLACK_DOMAIN): `slack.com`, or
 * `slack-gov.com` for GovSlack — the Web API (`https://<domain>/api/`, unless SLACK_API_URL says otherwise), the
 * OAuth authorize page, the file host a bot token may be sent to (`files.<domain>`) and response_urls
 * (`hooks.<domain>`). A Web API base on another host is a stand-in (tests, the playground), which serves all of
 * those on its own origin.
 */

/** The Slack the bot talks to: `config.slack`'s domain and Web API base. */
export interface SlackHosts {
  domain: string;
  apiUrl: string;
}

/** Whether the Web API base is Slack's own (the domain, or a host of it) rather than a stand-in. */
export function isSlackApi(slack: SlackHosts): boolean {
  const host = new URL(slack.apiUrl).hostname.toLowerCase();
  return host === slack.domain || host.endsWith(`.${slack.domain}`);
}

/** Where the OAuth install sends a browser: Slack's authorize page, beside its Web API. */
export function slackAuthorizeUrl(slack: SlackHosts): string {
  const origin = isSlackApi(slack) ? `https://${slack.domain}` : new URL(slack.apiUrl).origin;
  return `${origin}/oauth/v2/authorize`;
}

/** Slack's response_url host (a stand-in serves response_urls on its own origin). */
export function slackHooksHost(slack: SlackHosts): string {
  return `hooks.${slack.domain}`;
}
