/**
 * The platform's error code and request id are the platform's text: they reach Slack (in the failure's context line)
 * and the logs scrubbed like its messages — no mention or link Slack would act on, no API key, token or
 * hook-token-shaped string — and bounded. Checked in what the Slack stand-in received and accepted.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MEMBER_ID, startHarness, useHarness } from '../support/harness.js';

const h = useHarness(() => startHarness());

describe('the platform’s code and request id in Slack', () => {
  it('are escaped and scrubbed: a hostile code and a secret-looking request id are neutralised', async () => {
    const apiKey = h.platform.apiKey;
    const slackToken = 'xoxb-2222222222-abcdefghijklmnop';
    const hookToken = randomBytes(32).toString('base64url');
    h.platform.inject({
      path: '/dashboard/dashboard-stats',
      status: 500,
      body: JSON.stringify({
        error: {
          code: '<!channel> <https://evil.example|x>',
          requestId: `req ${apiKey} ${slackToken} ${hookToken}\n<@U0ADMIN01>`,
          message: 'Internal server error',
        },
      }),
    });

    await h.signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: 'hostile' });
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'hostile'));
    expect(answer.status).toBe(200);
    const text = JSON.stringify(answer.body);

    expect(text).toContain('"text":"The platform had an internal error — try again in a minute;');
    expect(text).toContain(
      `"type":"context","elements":[{"type":"mrkdwn","text":"HTTP 500 · code &lt;!channel&gt; &lt;https://evil.example|x&gt; · request id req ••••${apiKey.slice(-4)} xoxb-[redacted] [redacted] &lt;@U0ADMIN01&gt;"`,
    );
    for (const raw of ['<!channel>', '<https://evil', '<@U0ADMIN01>', apiKey, slackToken, hookToken])
      expect(text).not.toContain(raw);
    for (const secret of [apiKey, slackToken, hookToken]) expect(h.logs()).not.toContain(secret);
  });
});
