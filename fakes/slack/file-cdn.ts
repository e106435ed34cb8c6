/**
 * Slack's file CDN: many authorized `url_private(_download)` requests are answered with a 302 to a signed,
 * expiring URL on another host that needs no token (`fileDownloads: 'cdn-redirect'`). Here the CDN is a
 * second port of the stand-in, started on first use; its hits land in `downloads` with `cdn` set.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoredFile } from './state.js';
import type { FileDownload } from './types.js';

interface CdnHost {
  files: ReadonlyMap<string, StoredFile>;
  downloads: FileDownload[];
  serverErrors: Error[];
}

export class FileCdn {
  private running: Promise<{ origin: string; server: Server }> | undefined;
  private readonly key = randomBytes(32);

  constructor(private readonly host: CdnHost) {}

  /** Answers an authorized download with a 302 to the file's signed CDN URL (valid 5 minutes). */
  async redirect(
    res: ServerResponse,
    stored: StoredFile,
    fileId: string,
    record: (status: number) => void,
  ): Promise<void> {
    try {
      const { origin } = await (this.running ??= this.start());
      const path = `/files-cdn/${stored.teamId}-${fileId}/${encodeURIComponent(stored.file.name)}`;
      const expires = Math.floor(Date.now() / 1000) + 300;
      record(302);
      res.writeHead(302, { location: `${origin}${path}?exp=${expires}&sig=${this.signature(path, expires)}` });
      res.end();
    } catch (err) {
      this.host.serverErrors.push(err instanceof Error ? err : new Error(String(err)));
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('fake slack error: CDN unavailable');
    }
  }

  async close(): Promise<void> {
    const running = await this.running?.catch(() => undefined);
    if (!running) return;
    running.server.closeAllConnections();
    await new Promise<void>((resolve) => running.server.close(() => resolve()));
  }

  private signature(path: string, expires: number): string {
    return createHash('sha256').update(this.key).update(`${path}\n${expires}`).digest('hex');
  }

  private async start(): Promise<{ origin: string; server: Server }> {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://cdn.invalid');
      const m = /^\/files-cdn\/([A-Z0-9]+)-([A-Z0-9]+)\//.exec(url.pathname);
      const stored = m?.[2] ? this.host.files.get(m[2]) : undefined;
      const expires = Number(url.searchParams.get('exp'));
      const valid =
        stored !== undefined &&
        expires * 1000 >= Date.now() &&
        url.searchParams.get('sig') === this.signature(url.pathname, expires);
      this.host.downloads.push({
        fileId: m?.[2] ?? '',
        authorized: valid,
        status: valid ? 200 : 403,
        at: Date.now(),
        cdn: { authorizationHeader: req.headers.authorization !== undefined },
      });
      if (!valid) {
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end('signature invalid or expired');
        return;
      }
      res.writeHead(200, { 'content-type': stored.file.mimetype, 'content-length': String(stored.data.length) });
      res.end(stored.data);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  }
}
