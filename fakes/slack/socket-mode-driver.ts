/**
 * Drives the bot over Socket Mode the way Slack does: the same payloads the HTTP `SlackSigner` sends,
 * wrapped in Socket Mode envelopes (`slash_commands` / `interactive` / `events_api`) and pushed down the
 * WebSocket the bot opened on the fake Slack (`apps.connections.open` → `hello`); each call resolves with
 * the bot's ack `{ envelopeId, payload, ms, timedOut, envelope }`.
 *
 * Payloads come from a private SlackSigner posting to a local capture endpoint, so both transports carry the
 * same payloads and fake-side effects (response_urls, trigger_ids, stored messages).
 *
 *   const fake = await startFakeSlack();
 *   const app = new App({ socketMode: true, appToken: fake.appToken, token: fake.botToken,
 *                         clientOptions: { slackApiUrl: fake.apiUrl } });
 *   await app.start();                       // apps.connections.open + WebSocket + hello
 *   const slack = new SocketModeDriver({ fake });
 *   const ack = await slack.command({ text: 'help' });
 *   …
 *   await app.stop(); await slack.close(); await fake.close();
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { SlackSigner, type SignedResult } from './signer.js';
import type { FakeSlack, SocketModeAck, SocketModeConnection, SocketModeEnvelopeInput } from './types.js';

export interface SocketModeDriverOptions {
  fake: FakeSlack;
  teamId?: string;
  teamDomain?: string;
  apiAppId?: string;
  /** The (deprecated) verification token Slack still puts in payloads. */
  verificationToken?: string;
  /** How long to wait for a connected bot, and then for its ack (each). Default 5000 ms. */
  timeoutMs?: number;
}

const envelopeSchema = z.object({
  type: z.enum(['slash_commands', 'interactive', 'events_api']),
  payload: z.record(z.string(), z.unknown()),
  accepts_response_payload: z.boolean(),
  retry_attempt: z.number().int().optional(),
  retry_reason: z.string().optional(),
});

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * What Slack puts in a Socket Mode envelope for a request it would otherwise POST to the Request URL.
 * Throws for requests that have no Socket Mode equivalent (url_verification, ssl_check).
 */
function envelopeFromHttpRequest(
  contentType: string,
  body: string,
  headers: IncomingHttpHeaders = {},
): SocketModeEnvelopeInput {
  if (contentType.toLowerCase().startsWith('application/json')) {
    const json: unknown = JSON.parse(body);
    const parsed = z.looseObject({ type: z.string() }).parse(json);
    if (parsed.type !== 'event_callback') throw new Error(`Socket Mode has no envelope for a ${parsed.type} request`);
    const retryNum = header(headers, 'x-slack-retry-num');
    return {
      type: 'events_api',
      payload: parsed,
      accepts_response_payload: false,
      // Slack always sends both over Socket Mode: 0 and '' on the first delivery.
      retry_attempt: retryNum === undefined ? 0 : Number(retryNum),
      retry_reason: header(headers, 'x-slack-retry-reason') ?? '',
    };
  }
  const form = new URLSearchParams(body);
  const payload = form.get('payload');
  if (payload !== null) {
    return {
      type: 'interactive',
      payload: z.record(z.string(), z.unknown()).parse(JSON.parse(payload)),
      accepts_response_payload: true,
    };
  }
  if (form.has('command')) {
    // The command's form fields, as a JSON object of strings (`is_enterprise_install: 'false'` included).
    return { type: 'slash_commands', payload: Object.fromEntries(form), accepts_response_payload: true };
  }
  throw new Error(`Socket Mode has no envelope for this request: ${body.slice(0, 120)}`);
}

/** Local endpoint the private signer posts to; answers with the envelope the request becomes. */
class EnvelopeCapture {
  private server: Server | undefined;
  private url: Promise<string> | undefined;

  endpoint(): Promise<string> {
    this.url ??= new Promise<string>((resolve, reject) => {
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          try {
            const envelope = envelopeFromHttpRequest(
              header(req.headers, 'content-type') ?? '',
              Buffer.concat(chunks).toString('utf8'),
              req.headers,
            );
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(envelope));
          } catch (err) {
            res.writeHead(400, { 'content-type': 'text/plain' });
            res.end(err instanceof Error ? err.message : String(err));
          }
        });
      });
      // Never keeps the test process alive if a test forgets close().
      server.unref();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () =>
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/capture`),
      );
      this.server = server;
    });
    return this.url;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.url = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export class SocketModeDriver {
  private readonly opts: SocketModeDriverOptions;
  private readonly capture = new EnvelopeCapture();
  private signer: Promise<SlackSigner> | undefined;
  readonly timeoutMs: number;

  constructor(opts: SocketModeDriverOptions) {
    this.opts = opts;
    this.timeoutMs = opts.timeoutMs ?? 5000;
  }

  // ------------------------------------------------------------------ payloads (same parameters as SlackSigner)

  /** A slash command (`command` defaults to `/campaign`), as a `slash_commands` envelope. */
  command(p: Parameters<SlackSigner['command']>[0]): Promise<SocketModeAck> {
    return this.viaSigner((s) => s.command(p));
  }

  /** A `block_actions` interaction (see SlackSigner.blockAction), as an `interactive` envelope. */
  blockAction(p: Parameters<SlackSigner['blockAction']>[0]): Promise<SocketModeAck> {
    return this.viaSigner((s) => s.blockAction(p));
  }

  /** A `view_submission` (see SlackSigner.viewSubmission: throws for inputs the stored view lacks). */
  viewSubmission(p: Parameters<SlackSigner['viewSubmission']>[0]): Promise<SocketModeAck> {
    return this.viaSigner((s) => s.viewSubmission(p));
  }

  /** A `view_closed` (Slack sends it only for views with `notify_on_close: true`). */
  viewClosed(p: Parameters<SlackSigner['viewClosed']>[0]): Promise<SocketModeAck> {
    return this.viaSigner((s) => s.viewClosed(p));
  }

  /** A global (`shortcut`) or message (`message_action`) shortcut. */
  shortcut(p: Parameters<SlackSigner['shortcut']>[0]): Promise<SocketModeAck> {
    return this.viaSigner((s) => s.shortcut(p));
  }

  /**
   * An Events API `event_callback` in an `events_api` envelope (message events are stored in the fake, as
   * with the signer). `retryNum` / `retryReason` become `retry_attempt` / `retry_reason` (default 0 / '').
   */
  event(event: Record<string, unknown>, opts: Parameters<SlackSigner['event']>[1] = {}): Promise<SocketModeAck> {
    return this.viaSigner((s) => s.event(event, opts));
  }

  /** Any envelope as given (for shapes the builders do not make). */
  envelope(envelope: SocketModeEnvelopeInput): Promise<SocketModeAck> {
    return this.opts.fake.pushEnvelope(envelope, { timeoutMs: this.timeoutMs });
  }

  // ------------------------------------------------------------------ connection

  /** Resolves once the bot has a ready Socket Mode connection (hello received, no disconnect pending). */
  waitForConnection(timeoutMs = this.timeoutMs): Promise<SocketModeConnection> {
    return this.opts.fake.waitForSocketConnection(timeoutMs);
  }

  /**
   * Slack's `{type:'disconnect', reason}` to every open connection (`refresh_requested` by default;
   * `warning`, `link_disabled`). The SDK closes and reconnects; the next send waits for the new connection.
   */
  disconnectAll(reason = 'refresh_requested', opts: { closeAfterMs?: number } = {}): number {
    return this.opts.fake.disconnectSockets(reason, opts);
  }

  /** Stops the local capture endpoint. */
  close(): Promise<void> {
    return this.capture.close();
  }

  // ------------------------------------------------------------------ plumbing

  private async viaSigner(build: (signer: SlackSigner) => Promise<SignedResult>): Promise<SocketModeAck> {
    const res = await build(await this.theSigner());
    if (res.status !== 200) throw new Error(`SocketModeDriver: ${res.body}`);
    return this.opts.fake.pushEnvelope(envelopeSchema.parse(res.json), { timeoutMs: this.timeoutMs });
  }

  private theSigner(): Promise<SlackSigner> {
    this.signer ??= this.capture.endpoint().then(
      (url) =>
        new SlackSigner({
          // Nothing verifies it: Socket Mode needs no signature, the capture endpoint just unwraps the request.
          signingSecret: randomBytes(16).toString('hex'),
          url,
          fake: this.opts.fake,
          ...(this.opts.teamId !== undefined ? { teamId: this.opts.teamId } : {}),
          ...(this.opts.teamDomain !== undefined ? { teamDomain: this.opts.teamDomain } : {}),
          ...(this.opts.apiAppId !== undefined ? { apiAppId: this.opts.apiAppId } : {}),
          ...(this.opts.verificationToken !== undefined ? { verificationToken: this.opts.verificationToken } : {}),
        }),
    );
    return this.signer;
  }
}
