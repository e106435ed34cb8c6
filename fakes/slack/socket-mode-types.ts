/** The Slack stand-in's Socket Mode types: envelopes, connections and acks (re-exported by types.ts). */
/** What Slack sends over a Socket Mode WebSocket for each request (the payloads are the HTTP ones). */
export interface SocketModeEnvelope {
  /** A UUID; the bot acks with `{ envelope_id, payload? }`. */
  envelope_id: string;
  type: 'slash_commands' | 'interactive' | 'events_api';
  /** Slash commands: the form fields as a JSON object (string values); interactive: the parsed `payload`; events: the `event_callback`. */
  payload: Record<string, unknown>;
  /** Whether the ack may carry a response (`true` for commands and interactions, `false` for events). */
  accepts_response_payload: boolean;
  /** Events only: 0 on first delivery (Bolt's `context.retryNum` is then 0, not undefined as over HTTP). */
  retry_attempt?: number;
  /** Events only: `''` on first delivery, e.g. `timeout` on a retry. */
  retry_reason?: string;
}

/** An envelope to push: `envelope_id` defaults to a fresh UUID. */
export type SocketModeEnvelopeInput = Omit<SocketModeEnvelope, 'envelope_id'> & { envelope_id?: string };

/** One WebSocket the bot opened with a URL from `apps.connections.open`. */
export interface SocketModeConnection {
  /** `ws1`, `ws2`, … in connection order. */
  id: string;
  openedAt: number;
  /** When the fake sent `hello` (right after the upgrade, like Slack). */
  helloAt?: number;
  /** When the fake sent a `disconnect` message on it; no envelopes go to it from then on. */
  disconnectReason?: string;
  closedAt?: number;
  /** Who started the close: the bot (close frame), the fake (after `disconnect` / on close()), or the TCP socket just ended. */
  closedBy?: 'client' | 'fake' | 'socket';
  closeCode?: number;
  /** Pings the client sent (each answered with a pong, or the SDK would drop the connection). */
  pingsReceived: number;
  /** Pongs the client sent back to the fake's pings. */
  pongsReceived: number;
}

/** An ack the bot sent for an envelope. */
export interface SocketModeAck {
  envelopeId: string;
  /** The ack's `payload` as sent. Bolt always sends one: `{}` for a bare `ack()`, `{ text }` for `ack('text')`. */
  payload?: Record<string, unknown>;
  /** Milliseconds from the fake sending the envelope to the ack arriving — the latency Slack measures. */
  ms: number;
  /** Slack gives up after 3 s (the user sees a timeout error, events get retried). */
  timedOut: boolean;
  /** The envelope it acknowledges. */
  envelope: SocketModeEnvelope;
  connectionId: string;
  at: number;
}

/** An envelope the fake sent to the bot. */
export interface SentEnvelope {
  envelope: SocketModeEnvelope;
  connectionId: string;
  at: number;
}
