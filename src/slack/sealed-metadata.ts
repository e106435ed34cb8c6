/**
 * Modal `private_metadata` that names where a result goes (a thread, a response_url) comes back through the
 * user's client. It is sealed with an HMAC — keyed by a value derived from the app's Slack secret and bound
 * to the modal's callback id and workspace — so a submission can't carry a thread or URL the bot did not
 * put there, nor reuse one modal's metadata in another form or workspace.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../config.js';
import { parseJsonValue } from './json-value.js';

export interface MetadataScope {
  callbackId: string;
  teamId: string;
}

const sealedSchema = z.object({ d: z.string(), s: z.string() });

/** The sealing key: never the secret itself, so a leak of one can't be turned into the other. */
export function metadataKey(config: Config): Buffer {
  const slack = config.slack;
  const secret = [
    slack.signingSecret,
    slack.appToken,
    slack.mode.kind === 'oauth' ? slack.mode.stateSecret : slack.mode.botToken,
  ]
    .filter((s): s is string => typeof s === 'string' && s !== '')
    .join('\n');
  return createHmac('sha256', secret).update('campaign-slack private_metadata v1').digest();
}

function mac(key: Buffer, scope: MetadataScope, data: string): Buffer {
  return createHmac('sha256', key)
    .update(JSON.stringify([scope.callbackId, scope.teamId, data]))
    .digest();
}

export function sealMetadata(key: Buffer, scope: MetadataScope, value: unknown): string {
  const d = JSON.stringify(value);
  return JSON.stringify({ d, s: mac(key, scope, d).toString('base64url') });
}

/** The value sealed for this scope, or undefined when absent, altered, or sealed for another form. */
export function openMetadata<T>(
  key: Buffer,
  scope: MetadataScope,
  text: string | undefined,
  schema: z.ZodType<T>,
): T | undefined {
  const sealed = parseJsonValue(text, sealedSchema);
  if (!sealed) return undefined;
  const given = Buffer.from(sealed.s, 'base64url');
  const expected = mac(key, scope, sealed.d);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return parseJsonValue(sealed.d, schema);
}
