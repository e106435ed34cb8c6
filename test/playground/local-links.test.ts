/**
 * Links of the bot that stay on the playground's page: which addresses become a thread pane or the page's audio
 * player, and how the Block Kit renderer marks them (pure functions).
 */
import { describe, expect, it } from 'vitest';
import { messageToHtml, type RenderContext } from '../../playground/blockkit-html.js';
import { localTargets } from '../../playground/local-links.js';

const target = localTargets({ slackDomain: 'campaign-playground', recordingsUrl: 'http://127.0.0.1:4555/recordings' });
const ctx: RenderContext = { localTarget: target };

describe('localTargets', () => {
  it('a permalink of the workspace opens its thread: a reply’s names the thread, a message is its own', () => {
    expect(target('https://campaign-playground.slack.com/archives/C0SUPPORT01/p1700000000000100')).toEqual({
      kind: 'thread',
      channel: 'C0SUPPORT01',
      ts: '1700000000.000100',
    });
    expect(
      target(
        'https://campaign-playground.slack.com/archives/C0SUPPORT01/p1700000009000200?thread_ts=1700000000.000100&cid=C0SUPPORT01',
      ),
    ).toEqual({ kind: 'thread', channel: 'C0SUPPORT01', ts: '1700000000.000100' });
  });

  it('leaves other workspaces’ and malformed permalinks alone', () => {
    expect(target('https://elsewhere.slack.com/archives/C0SUPPORT01/p1700000000000100')).toBeUndefined();
    expect(target('https://campaign-playground.slack.com/archives/C0SUPPORT01/p17')).toBeUndefined();
    expect(target('http://campaign-playground.slack.com/archives/C0SUPPORT01/p1700000000000100')).toBeUndefined();
  });

  it('recordings (the simulator’s, and sample events’) and voice previews play on the page', () => {
    expect(target('http://127.0.0.1:4555/recordings/call-1a2b.wav')).toEqual({
      kind: 'audio',
      src: '/playground/media/recording/call-1a2b.wav',
      title: 'call-1a2b.wav',
    });
    expect(target('https://recordings.example.com/call-sample-0001.mp3')).toMatchObject({
      src: '/playground/media/recording/call-sample-0001.mp3',
    });
    expect(target('https://cdn.example.com/voices/voice-3/preview.mp3')).toEqual({
      kind: 'audio',
      src: '/playground/media/voice/voice-3',
      title: 'voice-3 preview',
    });
    expect(target('https://recordings.example.com/a/../../etc/passwd')).toBeUndefined();
    expect(target('https://cdn.example.com/voices/voice-3/other.mp3')).toBeUndefined();
  });

  it('leaves every other address to open in a new tab', () => {
    for (const href of ['https://example.com/', 'mailto:a@example.com', 'https://docs.slack.dev/', 'not a url'])
      expect(target(href)).toBeUndefined();
  });
});

describe('rendering links that stay on the page', () => {
  it('a permalink in mrkdwn becomes a link that opens the thread, with no address to follow', () => {
    const html = messageToHtml(
      { text: '<https://campaign-playground.slack.com/archives/C0SUPPORT01/p1700000000000100|open thread>' },
      ctx,
    );
    expect(html).toContain('data-goto-channel="C0SUPPORT01"');
    expect(html).toContain('data-goto-thread="1700000000.000100"');
    expect(html).toContain('href="#"');
    expect(html).not.toContain('slack.com');
    expect(html).toContain('>open thread</a>');
  });

  it('a link button to a recording becomes a button that plays it, still reporting its click to the app', () => {
    const html = messageToHtml(
      {
        blocks: [
          {
            type: 'actions',
            block_id: 'b1',
            elements: [
              {
                type: 'button',
                action_id: 'open_recording',
                text: { type: 'plain_text', text: 'Recording' },
                url: 'https://recordings.example.com/call-9.mp3',
              },
            ],
          },
        ],
      },
      ctx,
    );
    expect(html).toMatch(/^<div class="bk-actions"><button type="button" class="bk-button local-link"/);
    expect(html).toContain('data-action-id="open_recording"');
    expect(html).toContain('data-audio-src="/playground/media/recording/call-9.mp3"');
    expect(html).not.toContain('recordings.example.com');
  });

  it('without a local target, links open in a new tab as before', () => {
    const html = messageToHtml({ text: '<https://example.com/x|docs>' }, ctx);
    expect(html).toBe(
      '<div class="bk-text-body"><a href="https://example.com/x" target="_blank" rel="noopener noreferrer">docs</a></div>',
    );
  });
});
