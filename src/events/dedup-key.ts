/**
 * Which deliveries are "the same event" (dedup key) and which events belong to one call or conversation
 * (order key). Delivery is at-least-once (docs/PLATFORM-API.md › Delivery 5), so every copy of an event must map to the
 * same dedup key, whatever order its JSON fields arrive in.
 */
import { createHash } from 'node:crypto';
import type { ParsedEvent } from './events.js';

/** How long a delivered event is remembered (the platform's redeliveries come well within a day). */
export const DEDUP_TTL_MS = 48 * 60 * 60 * 1000;

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Longest key kept as it is; a longer one (a sender's long call id) stands as its hash. */
const MAX_KEY = 200;

/**
 * `key`, or — past MAX_KEY characters — `<kind>:#<sha256 of key>`: the same for every copy of the event, and of a
 * size that never depends on what the sender put in it (the queue keeps an entry's order key beside its payload).
 */
function bounded(kind: string, key: string): string {
  return key.length <= MAX_KEY ? key : `${kind}:#${sha256(key)}`;
}

/** JSON with object keys sorted at every level: equal values, equal text. */
function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => stableStringify(v === undefined ? null : v)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * - calls: trigger + `callId` (the spec's advice), so a call's start and end are two events;
 * - messages: trigger + a hash of (campaignId, customerNumber, receivedAt/sentAt, messageContent) — the
 *   payloads carry no message id;
 * - anything else (and a call without a callId): trigger + a hash of the whole event.
 */
export function dedupKey(event: ParsedEvent): string {
  return bounded(event.trigger, fullDedupKey(event));
}

function fullDedupKey(event: ParsedEvent): string {
  if (event.known) {
    switch (event.trigger) {
      case 'call_started':
      case 'call_completed':
        if (event.data.callId) return `${event.trigger}:${event.data.callId}`;
        break;
      case 'message_received':
      case 'message_sent': {
        const d = event.data;
        const at = event.trigger === 'message_received' ? event.data.receivedAt : event.data.sentAt;
        return `${event.trigger}:${sha256(JSON.stringify([d.campaignId ?? '', d.customerNumber ?? '', at ?? '', d.messageContent ?? '']))}`;
      }
      default:
        break;
    }
  }
  return `${event.trigger}:${sha256(stableStringify(event.data))}`;
}

/**
 * Names the call, or the conversation (workspace, campaign, customer number), an event belongs to: a channel's
 * urgent lane carries a customer's messages waiting behind the first one of the same key in one post. Keys
 * include the team. An unknown event gets a key of its own: it is never carried with anything else.
 */
export function orderKey(teamId: string, event: ParsedEvent, dedup: string): string {
  return bounded(JSON.stringify(['order', teamId]), fullOrderKey(teamId, event, dedup));
}

function fullOrderKey(teamId: string, event: ParsedEvent, dedup: string): string {
  if (event.known) {
    switch (event.trigger) {
      case 'call_started':
      case 'call_completed':
        return JSON.stringify(['call', teamId, event.data.callId ?? dedup]);
      default:
        return JSON.stringify(['conversation', teamId, event.data.campaignId ?? '', event.data.customerNumber ?? '']);
    }
  }
  return JSON.stringify(['unknown', teamId, dedup]);
}
