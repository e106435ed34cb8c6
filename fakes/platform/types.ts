/** The platform simulator's public types: what it records, the faults a test injects, its handle. */
import type { IncomingHttpHeaders } from 'node:http';
import type { PlatformState } from './seed.js';

export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface RecordedRequest {
  method: string;
  /** Path below the base, still URL-encoded as sent, e.g. '/campaign/camp%2F1/bookings'. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  raw: Buffer;
  /** Client port of the TCP connection: equal ports on consecutive requests mean the socket was kept alive. */
  remotePort: number | undefined;
  multipart?: { fields: Record<string, string>; files: RecordedFile[] };
}

export type Fault = {
  method?: string;
  /** Exact path below the base (as recorded), or a RegExp tested against it. */
  path?: string | RegExp;
  /** Only requests sent with this `api-key` (one workspace's). */
  apiKey?: string;
  /** How many matching requests the fault applies to; every one when omitted. */
  times?: number;
} & (
  | { status: number; code?: string; message?: string }
  | { delayMs: number }
  /** Held until `release()` lets it go on to its normal answer: the test says when the platform answers. */
  | { hold: true }
  | { reset: true }
  | { body: string; status?: number; contentType?: string }
);

/**
 * How the whole platform behaves, as a person trying things sees it: `slow` answers every request after a delay,
 * `down` refuses connections (nothing listens on its port), `errors` answers every request 500 with the error
 * envelope and its request id. Faults (`inject`) still come first; `normal` is the default.
 */
export type PlatformMode = 'normal' | 'slow' | 'down' | 'errors';

export const PLATFORM_MODES: readonly PlatformMode[] = ['normal', 'slow', 'down', 'errors'];

export interface FakePlatform {
  /** Base URL including /v1/api, e.g. http://127.0.0.1:PORT/v1/api */
  readonly url: string;
  /** Where its calls' recordings are served (`<recordingsUrl>/<callId>.wav`, a generated WAV; no key needed). */
  readonly recordingsUrl: string;
  /** A valid key (the first active one). */
  readonly apiKey: string;
  readonly requests: RecordedRequest[];
  readonly state: PlatformState;
  /**
   * One more key the platform knows (another workspace's, say): a copy of the first key's row, active unless
   * `Active` says otherwise. Kept until `resetState()`.
   */
  addApiKey(key: string, row?: { CompanyName?: string; Active?: boolean }): void;
  inject(fault: Fault): void;
  clearFaults(): void;
  /** Requests a `hold` fault is holding now, oldest first. */
  held(): RecordedRequest[];
  /** Lets the held requests `which` picks (all by default) go on to their normal answer; returns how many. */
  release(which?: (req: RecordedRequest) => boolean): number;
  /** The current mode (`normal` unless setMode changed it). */
  mode(): PlatformMode;
  /**
   * Switches the mode; `slowMs` is the delay of `slow` (3 s by default). Going `down` closes the listener and
   * every open connection; leaving it listens again on the same port (resolves once it does).
   */
  setMode(mode: PlatformMode, opts?: { slowMs?: number }): Promise<void>;
  /** Clears recorded requests and faults and releases held requests (state is kept; see resetState). */
  reset(): void;
  /** Puts the default seed back into `state`, in place (references to `state` stay valid). */
  resetState(): void;
  close(): Promise<void>;
}
