/**
 * Socket Mode: `apps.connections.open` with the app-level token (`xapp-…`; any other token type is
 * `not_allowed_token_type`) returns a one-time `ws://…/link/?ticket=…` URL on the stand-in's own port. The
 * WebSocket sends `hello`, answers pings, pings the client, collects `{envelope_id, payload}` acks and can
 * send `disconnect`. Envelopes are pushed by `pushEnvelope`; tests normally use `SocketModeDriver`
 * (./socket-mode-driver.ts), which builds Slack's payloads.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { SlackState } from './state.js';
import type {
  SentEnvelope,
  SocketModeAck,
  SocketModeConnection,
  SocketModeEnvelope,
  SocketModeEnvelopeInput,
} from './types.js';
import { clone, fail, hex, isObj, sleep, str, type Json } from './util.js';

/** Slack's apps.connections.open host names look like this; only informative. */
const SOCKET_HOST = 'applink-fake-0';
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How long a close handshake the stand-in started may take before it drops the TCP socket. */
const CLOSE_WAIT_MS = 1000;

interface LiveSocket {
  record: SocketModeConnection;
  ws: WebSocket;
  /** Settles when the TCP socket is gone. */
  closed: Promise<void>;
  /** The stand-in started the close (or ws did, on a protocol error). */
  closedByFake: boolean;
  pingTimer?: NodeJS.Timeout;
  /** Closes the connection some time after a `disconnect` message, if the client has not. */
  closeTimer?: NodeJS.Timeout;
  killTimer?: NodeJS.Timeout;
}

interface PendingAck {
  resolve(ack: SocketModeAck): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
  connectionId: string;
}

/** `a slash_commands envelope (/campaign hello)`, for error messages. */
function describeEnvelope(e: SocketModeEnvelope): string {
  const p = e.payload;
  const detail =
    e.type === 'slash_commands'
      ? `${str(p, 'command') ?? '?'} ${str(p, 'text') ?? ''}`.trim()
      : e.type === 'interactive'
        ? String(p.type)
        : isObj(p.event)
          ? String(p.event.type)
          : String(p.type);
  return `a ${e.type} envelope (${detail})`;
}

function isOpen(live: LiveSocket): boolean {
  return live.ws.readyState === WebSocket.OPEN;
}

export class SocketModeHub {
  readonly connections: SocketModeConnection[] = [];
  readonly envelopes: SentEnvelope[] = [];
  readonly acks: SocketModeAck[] = [];

  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
  });
  private readonly live = new Map<string, LiveSocket>();
  /** One-time tickets from apps.connections.open that a WebSocket upgrade may use. */
  private readonly tickets = new Set<string>();
  private readonly sent = new Map<string, { envelope: SocketModeEnvelope; connectionId: string; sentAt: number }>();
  private readonly pendingAcks = new Map<string, PendingAck>();
  private counter = 0;

  constructor(private readonly s: SlackState) {}

  /** apps.connections.open: only the app-level token; bot/user tokens are real but of the wrong type. */
  open(token: string | undefined): Json {
    if (token === undefined || token === '') return fail('not_authed');
    if (token !== this.s.appToken) return fail(this.s.tokens.has(token) ? 'not_allowed_token_type' : 'invalid_auth');
    const ticket = randomUUID();
    this.tickets.add(ticket);
    return { ok: true, url: `${this.s.baseUrl.replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${hex(32)}` };
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: number, text: string): void => {
      socket.end(
        `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
    };
    try {
      const url = new URL(req.url ?? '/', this.s.baseUrl);
      if (url.pathname !== '/link/' && url.pathname !== '/link') return refuse(404, 'Not Found');
      const key = req.headers['sec-websocket-key'];
      // Checked before the ticket, so a malformed request does not use it up.
      if (
        typeof key !== 'string' ||
        req.headers['sec-websocket-version'] !== '13' ||
        (req.headers.upgrade ?? '').toLowerCase() !== 'websocket'
      ) {
        return refuse(400, 'Bad Request');
      }
      // Tickets are one-time: a reconnect must call apps.connections.open again.
      if (!this.tickets.delete(url.searchParams.get('ticket') ?? '')) return refuse(401, 'Unauthorized');
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    } catch (err) {
      this.s.serverErrors.push(err instanceof Error ? err : new Error(String(err)));
      socket.destroy();
    }
  }

  waitForConnection(timeoutMs = 5000): Promise<SocketModeConnection> {
    return this.readySocket(timeoutMs, 'to be ready').then((live) => live.record);
  }

  async pushEnvelope(input: SocketModeEnvelopeInput, opts: { timeoutMs?: number } = {}): Promise<SocketModeAck> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    const envelope: SocketModeEnvelope = {
      envelope_id: input.envelope_id ?? randomUUID(),
      type: input.type,
      payload: clone(input.payload),
      accepts_response_payload: input.accepts_response_payload,
    };
    if (input.retry_attempt !== undefined) envelope.retry_attempt = input.retry_attempt;
    if (input.retry_reason !== undefined) envelope.retry_reason = input.retry_reason;
    if (this.pendingAcks.has(envelope.envelope_id))
      throw new Error(`fakeSlack.pushEnvelope: envelope ${envelope.envelope_id} is already waiting for its ack`);
    const live = await this.readySocket(timeoutMs, `to deliver ${describeEnvelope(envelope)}`);
    const connectionId = live.record.id;
    return new Promise<SocketModeAck>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pendingAcks.delete(envelope.envelope_id);
        const current = this.live.get(connectionId);
        const still = current && isOpen(current) ? 'still open' : 'closed';
        const consequence = envelope.type === 'events_api' ? 'retried the event' : 'shown the user an error';
        reject(
          new Error(
            `fakeSlack: the bot did not ack ${describeEnvelope(envelope)} (envelope ${envelope.envelope_id}) within ${timeoutMs} ms ` +
              `on Socket Mode connection ${connectionId} (${still}). Slack gives up after 3000 ms and would have ${consequence}. ` +
              `Does the listener call ack()?\n  fake errors: ${this.s.serverErrors.map((e) => e.message).join(' | ') || 'none'}`,
          ),
        );
      }, timeoutMs);
      this.pendingAcks.set(envelope.envelope_id, { resolve, reject, timer, connectionId });
      this.sent.set(envelope.envelope_id, { envelope, connectionId, sentAt: performance.now() });
      this.envelopes.push({ envelope: clone(envelope), connectionId, at: Date.now() });
      live.ws.send(JSON.stringify(envelope));
    });
  }

  disconnect(reason = 'refresh_requested', opts: { closeAfterMs?: number } = {}): number {
    let count = 0;
    for (const live of this.live.values()) {
      if (!isOpen(live)) continue;
      live.record.disconnectReason = reason;
      live.ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: SOCKET_HOST } }));
      clearTimeout(live.closeTimer);
      live.closeTimer = setTimeout(() => {
        if (!isOpen(live)) return;
        live.record.closedBy = 'fake';
        this.closeSocket(live, 1001, 'going away');
      }, opts.closeAfterMs ?? 10_000);
      live.closeTimer.unref();
      count += 1;
    }
    return count;
  }

  /** Forgets closed connections, sent envelopes and acks; open connections stay open. */
  reset(): void {
    this.envelopes.length = 0;
    this.acks.length = 0;
    for (const id of [...this.sent.keys()]) if (!this.pendingAcks.has(id)) this.sent.delete(id);
    for (let i = this.connections.length - 1; i >= 0; i -= 1) {
      if (this.connections[i]?.closedAt !== undefined) this.connections.splice(i, 1);
    }
  }

  /** Closes every connection with a proper handshake (1001 "going away"), so a stopping bot sees a clean close. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.live.values()].map((live) => {
        clearTimeout(live.closeTimer);
        clearInterval(live.pingTimer);
        if (isOpen(live)) {
          live.record.closedBy ??= 'fake';
          this.closeSocket(live, 1001, 'going away');
        }
        return live.closed;
      }),
    );
    this.wss.close();
  }

  /** Starts the close handshake; drops the TCP socket if the client does not answer in time. */
  private closeSocket(live: LiveSocket, code: number, reason: string): void {
    live.closedByFake = true;
    live.ws.close(code, reason);
    live.killTimer = setTimeout(() => live.ws.terminate(), CLOSE_WAIT_MS);
    live.killTimer.unref();
  }

  private accept(ws: WebSocket): void {
    this.counter += 1;
    const record: SocketModeConnection = {
      id: `ws${this.counter}`,
      openedAt: Date.now(),
      pingsReceived: 0,
      pongsReceived: 0,
    };
    this.connections.push(record);
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    const live: LiveSocket = { record, ws, closed, closedByFake: false };
    this.live.set(record.id, live);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) this.protocolError(record, 'binary message (Socket Mode only uses text frames)');
      else this.onText(record, rawText(data));
    });
    // ws answers pings with pongs itself; the SDK drops a connection whose pings go unanswered.
    ws.on('ping', () => {
      record.pingsReceived += 1;
    });
    ws.on('pong', () => {
      record.pongsReceived += 1;
    });
    // Only protocol errors arrive here; ws then closes the connection (1002 and the like).
    ws.on('error', (err) => {
      live.closedByFake = true;
      this.protocolError(record, err.message);
    });
    ws.on('close', (code: number) => {
      // 1006: no close frame, the TCP socket just ended. 1005: a close frame without a code.
      if (code !== 1006) {
        record.closedBy ??= live.closedByFake ? 'fake' : 'client';
        if (code !== 1005) record.closeCode ??= code;
      }
      this.onEnd(record);
    });
    const interval = this.s.opts.socketPingIntervalMs ?? 5000;
    if (interval > 0) {
      live.pingTimer = setInterval(() => ws.ping(Buffer.from(`ping ${Date.now()}`)), interval);
      live.pingTimer.unref();
    }
    const numConnections = [...this.live.values()].filter(isOpen).length;
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: numConnections,
        debug_info: { host: SOCKET_HOST, build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: this.s.appId },
      }),
    );
    record.helloAt = Date.now();
  }

  private protocolError(record: SocketModeConnection, message: string): void {
    this.s.serverErrors.push(new Error(`Socket Mode ${record.id}: ${message}`));
  }

  private onText(record: SocketModeConnection, data: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(data);
    } catch {
      this.protocolError(record, `the bot sent a non-JSON message: ${data.slice(0, 200)}`);
      return;
    }
    if (!isObj(msg) || typeof msg.envelope_id !== 'string') {
      this.protocolError(record, `the bot sent something that is not an ack: ${data.slice(0, 200)}`);
      return;
    }
    const sent = this.sent.get(msg.envelope_id);
    if (!sent) {
      this.protocolError(record, `ack for an envelope_id the fake never sent: ${msg.envelope_id}`);
      return;
    }
    if (msg.payload !== undefined && !isObj(msg.payload)) {
      this.protocolError(record, `ack payload for ${msg.envelope_id} is not an object: ${data.slice(0, 200)}`);
    }
    const ms = performance.now() - sent.sentAt;
    const ack: SocketModeAck = {
      envelopeId: msg.envelope_id,
      ms,
      timedOut: ms > 3000,
      envelope: clone(sent.envelope),
      connectionId: record.id,
      at: Date.now(),
    };
    if (isObj(msg.payload)) ack.payload = msg.payload;
    this.acks.push(ack);
    const pending = this.pendingAcks.get(msg.envelope_id);
    if (pending) {
      this.pendingAcks.delete(msg.envelope_id);
      clearTimeout(pending.timer);
      pending.resolve(clone(ack));
    }
  }

  private onEnd(record: SocketModeConnection): void {
    record.closedAt ??= Date.now();
    record.closedBy ??= 'socket';
    const live = this.live.get(record.id);
    if (live) {
      clearInterval(live.pingTimer);
      clearTimeout(live.closeTimer);
      clearTimeout(live.killTimer);
      this.live.delete(record.id);
    }
    for (const [id, pending] of this.pendingAcks) {
      if (pending.connectionId !== record.id) continue;
      this.pendingAcks.delete(id);
      clearTimeout(pending.timer);
      const sent = this.sent.get(id);
      pending.reject(
        new Error(
          `fakeSlack: Socket Mode connection ${record.id} closed (${record.closedBy}${record.closeCode !== undefined ? `, code ${record.closeCode}` : ''}) ` +
            `before the bot acked ${sent ? describeEnvelope(sent.envelope) : 'an envelope'} (envelope ${id}).`,
        ),
      );
    }
  }

  /** The newest connection that got `hello` and no `disconnect`, waiting up to `timeoutMs` for one. */
  private async readySocket(timeoutMs: number, purpose: string): Promise<LiveSocket> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ready = [...this.live.values()].filter(
        (l) => isOpen(l) && l.record.helloAt !== undefined && l.record.disconnectReason === undefined,
      );
      const newest = ready.at(-1);
      if (newest) return newest;
      if (Date.now() >= deadline) {
        const opens = this.s.callsTo('apps.connections.open');
        const results = opens.map((c) => (c.response.ok === true ? 'ok' : String(c.response.error))).join(', ');
        const conns = this.connections
          .map(
            (c) =>
              `${c.id} ${c.closedAt === undefined ? 'open' : `closed by ${c.closedBy ?? '?'}${c.closeCode !== undefined ? ` (${c.closeCode})` : ''}`}${c.disconnectReason ? ` after disconnect:${c.disconnectReason}` : ''}`,
          )
          .join(', ');
        throw new Error(
          `fakeSlack: no Socket Mode connection ${purpose} within ${timeoutMs} ms.\n` +
            `  apps.connections.open calls: ${opens.length}${opens.length > 0 ? ` (${results})` : ''}; connections: ${conns || 'none'}.\n` +
            `  The bot needs new App({ socketMode: true, appToken: fake.appToken, token: fake.botToken, clientOptions: { slackApiUrl: fake.apiUrl } }) ` +
            `and an awaited app.start(); after a disconnect the SDK waits clientPingTimeout (5 s by default) before reconnecting.`,
        );
      }
      await sleep(10);
    }
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
