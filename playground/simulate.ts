/**
 * The platform's side of webhooks, for the playground's "Simulate" panel: build an event the way the platform
 * would (docs/PLATFORM-API.md), then deliver it like the platform does — an HTTP POST of a JSON array holding
 * the event to every hook URL subscribed for that trigger and campaign (or `*`).
 *
 * Hook URLs are registered by the real `/campaign subscribe` (so they start with the playground's
 * `https://playground.invalid`); delivery swaps that origin for the bot's local address and keeps the path, so
 * the request reaches the real `/hooks/<token>` route with the token the bot made.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { bookCall, bookChat } from '../fakes/platform/index.js';
import type { PlatformState } from '../fakes/platform/seed.js';
import { customerFor, pickOutcome, type CallOutcomeName } from './call-outcomes.js';
import type { HandOver } from './hand-over.js';

export const SIMULATED_TRIGGERS = [
  'call_started',
  'call_completed',
  'message_received',
  'message_sent',
  'message_session_completed',
] as const;
type SimulatedTrigger = (typeof SIMULATED_TRIGGERS)[number];

/** Who an event is about when the panel names nobody. */
const DEFAULT_CUSTOMER = { name: 'Olivia Brown', number: '+14155550123' };

export interface SimulateInput {
  trigger: SimulatedTrigger;
  campaignId: string;
  customerName?: string;
  customerNumber?: string;
  /** Chat text (message events) or the call summary (call_completed). */
  text?: string;
  /** How a completed call ends (call-outcomes.ts); one at random when absent. */
  outcome?: CallOutcomeName | 'random';
}

interface Delivery {
  /** The hook path (its token cut to a prefix: the page shows it). */
  hook: string;
  status: number;
  body: string;
}

export interface SimulateResult {
  event: Record<string, unknown>;
  deliveries: Delivery[];
  /** Set when nothing was delivered, saying why. */
  problem?: string;
  /** The platform session of this chat conversation (message events), in human handoff. */
  sessionId?: string;
  /** How the session was handed over to the conversation's card (message events, the first time). */
  handOver?: HandOver;
}

/** Conversation → platform session, and customer → the call in progress, so related events line up. */
export class SimulatorMemory {
  private readonly calls = new Map<string, string>();
  private readonly sessions = new Map<string, string>();
  /** Customer numbers the account has chatted with (each a contact on the dashboard). */
  readonly contacts = new Set<string>();

  callFor(campaignId: string, number: string, fresh: boolean): string {
    const key = `${campaignId}|${number}`;
    const existing = this.calls.get(key);
    if (existing && !fresh) return existing;
    const id = `call-${randomBytes(4).toString('hex')}`;
    this.calls.set(key, id);
    return id;
  }

  endCall(campaignId: string, number: string): void {
    this.calls.delete(`${campaignId}|${number}`);
  }

  /** The conversation's session, created in handoff state on the platform the first time. */
  sessionFor(state: PlatformState, campaignId: string, number: string): string {
    const key = `${campaignId}|${number}`;
    const existing = this.sessions.get(key);
    if (existing && state.sessions[existing]) return existing;
    const id = `sess-${randomBytes(4).toString('hex')}`;
    state.sessions[id] = { campaignId, handoff: true };
    this.sessions.set(key, id);
    return id;
  }

  hasSession(state: PlatformState, campaignId: string, number: string): boolean {
    const id = this.sessions.get(`${campaignId}|${number}`);
    return id !== undefined && state.sessions[id]?.handoff === true;
  }

  endSession(state: PlatformState, campaignId: string, number: string): string | undefined {
    const key = `${campaignId}|${number}`;
    const id = this.sessions.get(key);
    if (id && state.sessions[id]) state.sessions[id].handoff = false;
    this.sessions.delete(key);
    return id;
  }
}

/** Builds the event. Throws an Error with a readable message for an unknown campaign. */
function buildEvent(
  state: PlatformState,
  memory: SimulatorMemory,
  input: SimulateInput,
  /** Where the simulator serves its calls' recordings (a host the playground's bot lists in RECORDING_HOSTS). */
  recordingsUrl: string,
  now = new Date(),
): { event: Record<string, unknown>; sessionId?: string } {
  const campaign = state.campaigns[input.campaignId];
  if (!campaign) throw new Error(`The simulator has no campaign ${input.campaignId}.`);
  const agent = state.agents[campaign.id]?.[0];
  const customerNumber = input.customerNumber?.trim() || DEFAULT_CUSTOMER.number;
  const common = {
    campaignId: campaign.id,
    agentId: agent?.id ?? '',
    customerNumber,
    customerName: input.customerName?.trim() || DEFAULT_CUSTOMER.name,
    campaignName: campaign.name,
    agentName: agent?.name ?? '',
    campaignType: campaign.type,
  };
  const text = input.text?.trim();
  switch (input.trigger) {
    case 'call_started':
      return { event: { ...common, callId: memory.callFor(campaign.id, customerNumber, true) } };
    case 'call_completed': {
      const callId = memory.callFor(campaign.id, customerNumber, false);
      memory.endCall(campaign.id, customerNumber);
      const outcome = pickOutcome(input.outcome);
      const { durationMs } = outcome;
      const endedAt = now;
      const startedAt = new Date(endedAt.getTime() - durationMs);
      const first = common.customerName.split(' ')[0] ?? common.customerName;
      const customerEmail = `${first.toLowerCase().replace(/[^a-z]/g, '') || 'customer'}@example.com`;
      bookCall(state, {
        campaignId: campaign.id,
        callId,
        customerName: common.customerName,
        customerEmail,
        status: outcome.status,
        durationMs,
        endedAt: endedAt.toISOString(),
        booked: outcome.booking === true,
      });
      return {
        event: {
          ...common,
          callId,
          callSummary: text || outcome.summary(common.customerName),
          startedAt: startedAt.toISOString(),
          endedAt: endedAt.toISOString(),
          durationMs,
          durationSeconds: Math.round(durationMs / 1000),
          durationMinutes: Math.round((durationMs / 60_000) * 100) / 100,
          callTranscript: outcome.talk
            ? [
                `AI: Hi ${first}, this is ${agent?.name ?? 'your assistant'} from ${state.profile.company}.`,
                ...outcome.talk,
              ].join('\n')
            : '',
          audioUrl: `${recordingsUrl}/${callId}.wav`,
          customerEmail,
          status: outcome.status,
          endedReason: outcome.endedReason,
        },
      };
    }
    case 'message_received': {
      const sessionId = memory.sessionFor(state, campaign.id, customerNumber);
      bookChat(state, memory.contacts, customerNumber);
      return {
        event: {
          ...common,
          messageContent: text || 'Hi, can I move my appointment to Friday?',
          receivedAt: now.toISOString(),
        },
        sessionId,
      };
    }
    case 'message_sent': {
      const sessionId = memory.sessionFor(state, campaign.id, customerNumber);
      return {
        event: {
          ...common,
          messageContent: text || 'Sure! Friday 9:30 is free. Shall I book it?',
          sentAt: now.toISOString(),
        },
        sessionId,
      };
    }
    case 'message_session_completed': {
      // Payload not documented (docs/PLATFORM-API.md): the conversation's fields, a completion time, and the trigger named.
      const sessionId = memory.endSession(state, campaign.id, customerNumber);
      return {
        event: { triggerName: 'message_session_completed', ...common, completedAt: now.toISOString() },
        ...(sessionId ? { sessionId } : {}),
      };
    }
  }
}

/**
 * Why the platform would send nothing for this event, in a sentence for the page: it closes only a conversation
 * that is open (a session this simulator opened with a customer message and has not closed).
 */
function ignoredBecause(state: PlatformState, memory: SimulatorMemory, input: SimulateInput): string | undefined {
  if (input.trigger !== 'message_session_completed') return undefined;
  const campaign = state.campaigns[input.campaignId];
  if (!campaign) return undefined;
  const number = input.customerNumber?.trim() || DEFAULT_CUSTOMER.number;
  if (memory.hasSession(state, campaign.id, number)) return undefined;
  const name = input.customerName?.trim() || DEFAULT_CUSTOMER.name;
  return `Chat session completed did nothing: no open conversation for ${name} (${number}) in ${campaign.name}. Fire a customer message for them first.`;
}

/** Hook URLs subscribed for this trigger and campaign. session_completed goes where the conversation's messages go. */
function hookUrlsFor(state: PlatformState, trigger: SimulatedTrigger, campaignId: string): string[] {
  const triggers: readonly string[] =
    trigger === 'message_session_completed' ? ['message_received', 'message_sent'] : [trigger];
  const urls = state.subscriptions
    .filter((s) => triggers.includes(s.triggerName) && (s.campaignId === campaignId || s.campaignId === '*'))
    .map((s) => s.hookUrl);
  return [...new Set(urls)];
}

/** POSTs `[event]` to each hook URL, at `botUrl` instead of the URL's own origin. */
async function deliver(
  hookUrls: readonly string[],
  event: Record<string, unknown>,
  botUrl: string,
): Promise<Delivery[]> {
  const body = JSON.stringify([event]);
  return Promise.all(
    hookUrls.map(async (hookUrl) => {
      const path = new URL(hookUrl).pathname;
      const res = await request(`${botUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'campaign-platform-simulator' },
        body,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const text = await res.body.text();
      return { hook: `${path.slice(0, '/hooks/'.length + 6)}…`, status: res.statusCode, body: text.slice(0, 500) };
    }),
  );
}

export async function simulate(
  state: PlatformState,
  memory: SimulatorMemory,
  input: SimulateInput,
  botUrl: string,
  recordingsUrl: string,
): Promise<SimulateResult> {
  const ignored = ignoredBecause(state, memory, input);
  if (ignored) return { event: {}, deliveries: [], problem: ignored };
  const { event, sessionId } = buildEvent(state, memory, input, recordingsUrl);
  const urls = hookUrlsFor(state, input.trigger, input.campaignId);
  const extra = sessionId ? { sessionId } : {};
  if (urls.length === 0) {
    const what = input.trigger === 'message_session_completed' ? 'chat events' : input.trigger;
    return {
      event,
      deliveries: [],
      problem: `No webhook is subscribed for ${what} of ${input.campaignId}: run \`/campaign subscribe ${input.campaignId}\` (or \`*\`) in a channel first.`,
      ...extra,
    };
  }
  return { event, deliveries: await deliver(urls, event, botUrl), ...extra };
}

export interface BurstResult {
  /** Calls sent (each a call_completed to every hook subscribed for it). */
  calls: number;
  /** How the bot answered the deliveries: HTTP status → count. */
  answers: Record<string, number>;
  /** How the calls ended: status → count. */
  statuses: Record<string, number>;
  problem?: string;
}

/**
 * Many calls of one campaign ending at once, as when a dialer finishes a batch: each a `call_completed` with a
 * customer of its own and an outcome at random, all delivered together — what roll-ups and outcome alerts are for.
 */
export async function simulateBurst(
  state: PlatformState,
  memory: SimulatorMemory,
  campaignId: string,
  count: number,
  botUrl: string,
  recordingsUrl: string,
): Promise<BurstResult> {
  const calls = Array.from({ length: count }, (_, i) =>
    simulate(state, memory, { trigger: 'call_completed', campaignId, ...customerFor(i) }, botUrl, recordingsUrl),
  );
  const results = await Promise.all(calls);
  const answers: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  for (const r of results) {
    for (const d of r.deliveries) answers[d.status] = (answers[d.status] ?? 0) + 1;
    const status = String(r.event.status);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const problem = results.find((r) => r.problem)?.problem;
  return { calls: count, answers, statuses, ...(problem ? { problem } : {}) };
}
