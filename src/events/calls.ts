/**
 * Call events in their routed channels: `call_started` as one post, `call_completed` as a card with its
 * transcript in the card's thread (a message, or a file when it is too long for one).
 */
import { postMessage } from '../slack/post.js';
import { renderCallCompleted, renderCallStarted, renderTranscript } from './render/index.js';
import type { EventWorker } from './worker.js';

export function registerCallHandlers(worker: EventWorker): void {
  worker.on('call_started', (d) =>
    d.toEachRoute(async (slack, channel) => {
      await d.steps.once(d.step(channel, 'post'), () =>
        postMessage(slack, { channel }, renderCallStarted(d.event.data)),
      );
    }),
  );

  worker.on('call_completed', (d) =>
    d.toEachRoute(async (slack, channel) => {
      const card = await d.steps.once(d.step(channel, 'card'), () =>
        postMessage(slack, { channel }, renderCallCompleted(d.event.data)),
      );
      const transcript = renderTranscript(d.event.data);
      if (!transcript) return;
      await d.steps.once(d.step(channel, 'transcript'), async () => {
        if (transcript.kind === 'message')
          return postMessage(slack, { channel, threadTs: card.result }, transcript.payload);
        await slack.filesUploadV2({
          channel_id: channel,
          thread_ts: card.result,
          file: Buffer.from(transcript.content, 'utf8'),
          filename: transcript.filename,
          title: transcript.title,
          initial_comment: transcript.comment,
        });
        return 'file';
      });
    }),
  );
}
