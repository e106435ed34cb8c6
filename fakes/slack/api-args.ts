/**
 * A Web API call's arguments as Slack reads them: the query string, then a JSON body (its `token` ignored by the
 * caller), a multipart form or a urlencoded form, whose JSON-typed fields (`blocks`, `view`, `metadata`…) arrive as
 * JSON strings and are decoded here.
 */
import type { IncomingMessage } from 'node:http';
import type { SlackArgs, SlackCall } from './types.js';
import { isObj, JSON_FIELDS } from './util.js';

export async function parseApiArgs(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
): Promise<{ args: SlackArgs; encoding: SlackCall['encoding']; invalidJson: boolean }> {
  const args: SlackArgs = Object.fromEntries(url.searchParams.entries());
  const ct = (req.headers['content-type'] ?? '').toLowerCase();
  let encoding: SlackCall['encoding'] = 'query';
  let invalidJson = false;
  if (ct.startsWith('application/json')) {
    encoding = 'json';
    try {
      const parsed: unknown = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
      if (isObj(parsed)) Object.assign(args, parsed);
      else invalidJson = true;
    } catch {
      invalidJson = true;
    }
    return { args, encoding, invalidJson };
  }
  if (body.length > 0 && ct.startsWith('multipart/form-data')) {
    encoding = 'multipart';
    const form = await new Response(body, { headers: { 'content-type': ct } }).formData();
    for (const [k, v] of form.entries()) {
      args[k] = typeof v === 'string' ? v : { filename: v.name, size: v.size };
    }
  } else if (body.length > 0 || ct.startsWith('application/x-www-form-urlencoded')) {
    encoding = 'form';
    for (const [k, v] of new URLSearchParams(body.toString('utf8')).entries()) args[k] = v;
  }
  for (const key of JSON_FIELDS) {
    const v = args[key];
    if (typeof v === 'string' && /^\s*[[{]/.test(v)) {
      try {
        args[key] = JSON.parse(v) as unknown;
      } catch {
        // left as a string: the method answers invalid_blocks_format / invalid_arguments like Slack
      }
    }
  }
  return { args, encoding, invalidJson };
}
