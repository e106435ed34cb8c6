/**
 * A request body from someone we don't trust yet, read bounded: nothing past `maxBytes` (declared or streamed),
 * past `timeoutMs`, or past what `admit` allows is ever buffered; reading stops at once (the request is paused)
 * and the caller answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type BodyRead = Buffer | 'too_large' | 'too_slow' | 'not_admitted' | 'aborted';

export interface BodyBounds {
  maxBytes: number;
  timeoutMs?: number;
  /** Room for `bytes` more, `total` of the body read with them (e.g. a budget shared between requests). */
  admit?: (bytes: number, total: number) => boolean;
}

export function readBody(req: IncomingMessage, bounds: BodyBounds): Promise<BodyRead> {
  if (Number(req.headers['content-length']) > bounds.maxBytes) return Promise.resolve('too_large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (!Buffer.isBuffer(result)) req.pause();
      resolve(result);
    };
    const timer = bounds.timeoutMs === undefined ? undefined : setTimeout(() => settle('too_slow'), bounds.timeoutMs);
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > bounds.maxBytes) return settle('too_large');
      if (bounds.admit && !bounds.admit(chunk.length, size + chunk.length)) return settle('not_admitted');
      size += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => settle(Buffer.concat(chunks, size));
    const onError = () => settle('aborted');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * A body still arriving after its time is a sender holding a socket: 408 when nothing was answered yet, and the
 * connection goes at once either way (no linger: its bytes trickle, so nothing in flight resets the answer).
 */
export function dropSlowBody(res: ServerResponse): void {
  const socket = res.socket;
  if (res.headersSent || !socket) {
    socket?.destroy();
    return;
  }
  const text = 'request body took too long';
  res.writeHead(408, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    connection: 'close',
  });
  res.end(text, () => socket.destroy());
}
