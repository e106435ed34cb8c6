/** The simulator's HTTP server: records every request, applies injected faults, checks the api-key, routes. */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RECORDINGS_PATH, serveRecording } from './recordings.js';
import { HttpError, matchRoute } from './routes.js';
import { moveSeedTo } from './relative-seed.js';
import { createSeedState, type PlatformState, type QuotaSeed } from './seed.js';
import type { FakePlatform, Fault, PlatformMode, RecordedFile, RecordedRequest } from './types.js';

const BASE_PATH = '/v1/api';
/** How long `slow` holds each answer unless setMode says otherwise. */
const DEFAULT_SLOW_MS = 3_000;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function parseMultipart(raw: Buffer, contentType: string): Promise<RecordedRequest['multipart']> {
  try {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    const fields: Record<string, string> = {};
    const files: RecordedFile[] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') fields[field] = value;
      else
        files.push({
          field,
          filename: value.name,
          contentType: value.type,
          data: Buffer.from(await value.arrayBuffer()),
        });
    }
    return { fields, files };
  } catch {
    return undefined;
  }
}

function parseJson(raw: Buffer, contentType: string): unknown {
  if (raw.length === 0 || !contentType.includes('json')) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function faultMatches(fault: Fault, req: RecordedRequest): boolean {
  if (fault.method && fault.method.toUpperCase() !== req.method) return false;
  if (fault.apiKey !== undefined && fault.apiKey !== req.headers['api-key']) return false;
  if (fault.path === undefined) return true;
  return typeof fault.path === 'string' ? fault.path === req.path : fault.path.test(req.path);
}

/** The seed, moved to `today` when one is given (the playground's), else as written (8 March 2024, for tests). */
function seedState(opts: { apiKeys?: string[]; quota?: QuotaSeed; today?: () => Date }): PlatformState {
  const state = createSeedState(opts.apiKeys, opts);
  if (opts.today) moveSeedTo(state, opts.today());
  return state;
}

export async function startFakePlatform(
  opts: { apiKeys?: string[]; quota?: QuotaSeed; today?: () => Date } = {},
): Promise<FakePlatform> {
  const state = seedState(opts);
  const requests: RecordedRequest[] = [];
  let faults: Fault[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let held: Array<{ req: RecordedRequest; go: () => void }> = [];
  let requestCounter = 0;
  let mode: PlatformMode = 'normal';
  let slowMs = DEFAULT_SLOW_MS;

  function release(which: (req: RecordedRequest) => boolean = () => true): number {
    const going = held.filter((h) => which(h.req));
    held = held.filter((h) => !going.includes(h));
    for (const h of going) h.go();
    return going.length;
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  function send(res: ServerResponse, requestId: string, status: number, body?: unknown): void {
    if (res.destroyed || res.writableEnded) return; // the client gave up (timeout) while we were delaying
    res.setHeader('x-request-id', requestId);
    if (status === 204 || body === undefined) {
      res.writeHead(status).end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
  }

  function sendError(res: ServerResponse, requestId: string, err: HttpError): void {
    send(res, requestId, err.status, { error: { message: err.message, code: err.code, requestId } });
  }

  /** Takes the first fault matching the request and uses up one of its `times`. */
  function takeFault(req: RecordedRequest): Fault | undefined {
    const fault = faults.find((f) => faultMatches(f, req));
    if (fault?.times !== undefined) {
      fault.times -= 1;
      if (fault.times <= 0) faults = faults.filter((f) => f !== fault);
    }
    return fault;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `req_${String(++requestCounter).padStart(6, '0')}`;
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const raw = await readBody(req);
    const contentType = req.headers['content-type'] ?? '';
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname.startsWith(BASE_PATH) ? url.pathname.slice(BASE_PATH.length) : url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: parseJson(raw, contentType),
      raw,
      remotePort: req.socket.remotePort,
      ...(contentType.startsWith('multipart/form-data') && { multipart: await parseMultipart(raw, contentType) }),
    };
    requests.push(recorded);

    const fault = takeFault(recorded);
    if (fault) {
      if ('reset' in fault) {
        req.socket.destroy();
        return;
      }
      if ('delayMs' in fault) {
        await sleep(fault.delayMs);
      } else if ('hold' in fault) {
        await new Promise<void>((go) => held.push({ req: recorded, go }));
      } else if ('body' in fault) {
        if (res.destroyed) return;
        res.setHeader('x-request-id', requestId);
        res.writeHead(fault.status ?? 200, { 'content-type': fault.contentType ?? 'application/json' }).end(fault.body);
        return;
      } else {
        sendError(res, requestId, new HttpError(fault.status, fault.message ?? 'injected fault', fault.code));
        return;
      }
    }

    if (mode === 'slow') await sleep(slowMs);
    if (mode === 'errors') {
      sendError(res, requestId, new HttpError(500, 'Internal server error'));
      return;
    }

    if (serveRecording(state, recorded.method, url.pathname, res)) return;
    if (!url.pathname.startsWith(`${BASE_PATH}/`)) {
      sendError(res, requestId, new HttpError(404, `no such path: ${url.pathname}`));
      return;
    }
    const key = req.headers['api-key'];
    if (typeof key !== 'string' || key === '') {
      sendError(res, requestId, new HttpError(401, 'Missing api-key header', 'UNAUTHORIZED'));
      return;
    }
    if (!state.apiKeys.some((k) => k.RowKey === key && k.Active)) {
      sendError(res, requestId, new HttpError(401, 'Invalid or inactive API key', 'UNAUTHORIZED'));
      return;
    }

    try {
      const match = matchRoute(recorded.method, recorded.path);
      if (match === undefined) throw new HttpError(404, `no such endpoint: ${recorded.method} ${recorded.path}`);
      if (match === 'wrong-method')
        throw new HttpError(405, `method ${recorded.method} not allowed`, 'METHOD_NOT_ALLOWED');
      const reply = match.route.handle({ req: recorded, params: match.params, state });
      send(res, requestId, reply.status, reply.body);
    } catch (err) {
      sendError(res, requestId, err instanceof HttpError ? err : new HttpError(500, 'Internal server error'));
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
    });
  });
  const listen = (at: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  /** Stops listening and drops every connection: a client then meets a refused connection, as with a host down. */
  const stopListening = () =>
    new Promise<void>((resolve, reject) => {
      if (!server.listening) return resolve();
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${BASE_PATH}`,
    recordingsUrl: `http://127.0.0.1:${port}${RECORDINGS_PATH.slice(0, -1)}`,
    apiKey: state.apiKeys.find((k) => k.Active)?.RowKey ?? '',
    requests,
    state,
    addApiKey(key, row = {}) {
      state.apiKeys.push({ ...state.apiKeys[0]!, RowKey: key, Active: true, ...row });
    },
    inject(fault) {
      faults.push({ ...fault });
    },
    clearFaults() {
      faults = [];
    },
    held: () => held.map((h) => h.req),
    mode: () => mode,
    async setMode(next, opts = {}) {
      slowMs = opts.slowMs ?? DEFAULT_SLOW_MS;
      if (next === mode) return;
      const wasDown = mode === 'down';
      mode = next;
      if (next === 'down') await stopListening();
      else if (wasDown) await listen(port);
    },
    release,
    reset() {
      requests.length = 0;
      faults = [];
      release();
    },
    resetState() {
      Object.assign(state, seedState(opts));
    },
    async close() {
      release();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await stopListening();
    },
  };
}
