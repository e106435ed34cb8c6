/**
 * The ingest baseline: a bare Node `http` server that reads a POST body, parses the same JSON and answers
 * what the bot answers — no framework, no validation, no Redis. Run as its own process (like the bot):
 *   PORT=4000 node --import tsx bench/bare-server.ts
 * With SPIN_US, it also keeps its one thread busy that long per request: a server exactly as costly per answer
 * as the bot, and nothing else — the floor for the bot's tail latency at saturation.
 */
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 4000);
const reply = JSON.stringify({ ok: true, queued: 1, duplicates: 0 });
const spinMs = Number(process.env.SPIN_US ?? 0) / 1000;

createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end('{"ok":true}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    for (const until = performance.now() + spinMs; performance.now() < until;);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(reply)),
    });
    res.end(reply);
  });
}).listen(port, '127.0.0.1');
