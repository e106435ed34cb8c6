/**
 * The playground's platform hands each chat's session over. A real platform's webhooks carry no session id
 * (docs/PLATFORM-API.md › Sessions), so there an agent presses **Link session** on the conversation's card once;
 * the simulator knows every session it opened, so once the bot's card for the chat is in a channel, the
 * playground presses that button and submits the id in the bot's own form — the real action and modal, as a
 * full member of the workspace would — and the first reply in the thread reaches the customer.
 */
import { LINK_SESSION_ACTION } from '../src/handoff/card.js';
import { LINK_SESSION_CALLBACK } from '../src/handoff/link-session.js';
import type { FakeSlack, SlackMessage, StoredView } from '../fakes/slack/index.js';
import type { SignedResult, SlackSigner } from '../fakes/slack/signer.js';
import { blockIdOf } from './blockkit-html.js';
import { buildStateValues } from './view-state.js';
import { PLAYGROUND_CHANNELS, type PlaygroundPerson } from './workspace.js';

/** Long enough for the bot to post a card on a busy machine; a card later than this is linked by hand. */
const CARD_WAIT_MS = 10_000;

export interface HandOver {
  sessionId: string;
  /** Who pressed Link session, as Slack shows them (`@you`): a full member, guests may not link. */
  by: string;
  /** The channels whose card now sends replies to the session. */
  linked: string[];
  /** Set when a card could not be linked, saying what the person can do. */
  problem?: string;
}

interface HandOverInput {
  slack: FakeSlack;
  sign: SlackSigner;
  /** Who presses the button. */
  as: PlaygroundPerson;
  campaignId: string;
  customerNumber: string;
  sessionId: string;
  /** Called with each Link session form the playground fills itself, so the page never shows it. */
  filled: (viewId: string) => void;
  cardWaitMs?: number;
}

/** The sessions handed over so far, and the forms the playground filled (which the page must not show). */
export class HandOvers {
  private readonly done = new Set<string>();
  private readonly forms = new Set<string>();
  private running = 0;
  private stopped = false;

  /** The playground stops: a hand-over still waiting for its card or form gives up at once. */
  stop(): void {
    this.stopped = true;
  }

  /** Hands `sessionId` over once: later messages of the same chat land in the thread already linked. */
  async handOver(input: Omit<HandOverInput, 'filled'>): Promise<HandOver | undefined> {
    if (this.done.has(input.sessionId)) return undefined;
    this.running += 1;
    try {
      const slack = stoppable(input.slack, () => this.stopped);
      const result = await handOver({ ...input, slack, filled: (id) => this.forms.add(id) });
      if (!result.problem) this.done.add(input.sessionId);
      return result;
    } finally {
      this.running -= 1;
    }
  }

  /** A Link session form the playground is filling or filled, not one for the person at the page. */
  hides(stored: StoredView): boolean {
    if (this.forms.has(stored.view.id)) return true;
    return this.running > 0 && stored.view.callback_id === LINK_SESSION_CALLBACK;
  }
}

/** Links `sessionId` to every open card of this chat that has none yet, waiting for the first to arrive. */
async function handOver(input: HandOverInput): Promise<HandOver> {
  const { slack, sessionId } = input;
  const result: HandOver = { sessionId, by: `@${input.as.name}`, linked: [] };
  const pick = () => unlinkedCards(slack, input.campaignId, input.customerNumber);
  let cards: SlackMessage[];
  try {
    cards = await slack.waitFor(() => (pick().length > 0 ? pick() : undefined), input.cardWaitMs ?? CARD_WAIT_MS);
  } catch {
    return { ...result, problem: byHand(sessionId, 'its card has not arrived yet') };
  }
  for (const card of cards) {
    const problem = await linkCard(input, card);
    if (problem) return { ...result, problem: byHand(sessionId, problem) };
    result.linked.push(channelName(card.channel));
  }
  return result;
}

/** Presses the card's Link session as `as`, then submits the form the bot opened with the session id. */
async function linkCard(input: HandOverInput, card: SlackMessage): Promise<string | undefined> {
  const { slack, sign, as } = input;
  const before = new Set(slack.views(LINK_SESSION_CALLBACK).map((v) => v.view.id));
  const pressed = await sign.blockAction({
    actionId: LINK_SESSION_ACTION,
    userId: as.id,
    channelId: card.channel,
    messageTs: card.ts,
  });
  if (pressed.status !== 200) return `the bot answered the button with HTTP ${pressed.status}`;
  let form: StoredView;
  try {
    form = await slack.waitFor(
      () => slack.views(LINK_SESSION_CALLBACK).find((v) => !before.has(v.view.id) && v.userId === as.id),
      5000,
    );
  } catch {
    return 'the bot opened no Link session form';
  }
  input.filled(form.view.id);
  const blocks: unknown[] = Array.isArray(form.view.blocks) ? form.view.blocks : [];
  const index = blocks.findIndex((b) => isObj(b) && b.type === 'input');
  const field = blocks[index];
  if (!isObj(field) || !isObj(field.element)) return 'the Link session form has no field';
  const actionId = typeof field.element.action_id === 'string' ? field.element.action_id : '';
  const blockId = blockIdOf(field, index);
  const { values } = buildStateValues(blocks, { [blockId]: { [actionId]: input.sessionId } }, () => undefined);
  const submitted = await sign.viewSubmission({
    callbackId: LINK_SESSION_CALLBACK,
    viewId: form.view.id,
    values,
    privateMetadata: form.view.private_metadata,
    userId: as.id,
  });
  return refusal(submitted);
}

/** What the bot's answer to the submission says went wrong, if anything. */
function refusal(res: SignedResult): string | undefined {
  if (res.status !== 200) return `the bot answered the form with HTTP ${res.status}`;
  const ack = isObj(res.json) ? res.json : {};
  if (ack.response_action !== 'errors') return undefined;
  const errors = isObj(ack.errors) ? Object.values(ack.errors).filter((e) => typeof e === 'string') : [];
  return `the bot refused it: ${errors.join(' ') || 'no reason given'}`;
}

/**
 * The bot's open conversation cards of this chat with no session yet: top-level messages offering
 * "Link session" (linked ones offer "Change session"), naming the campaign and the customer's number
 * (whose last digits show even where numbers are masked).
 */
function unlinkedCards(slack: FakeSlack, campaignId: string, customerNumber: string): SlackMessage[] {
  const digits = customerNumber.replace(/\D/g, '').slice(-4);
  return slack.messages().filter((m) => {
    if (m.thread_ts !== undefined && m.thread_ts !== m.ts) return false;
    const json = JSON.stringify(m.blocks ?? []);
    return (
      json.includes(`"action_id":"${LINK_SESSION_ACTION}"`) &&
      json.includes('Link session') &&
      json.includes(`\`${campaignId}\``) &&
      json.includes(digits)
    );
  });
}

function byHand(sessionId: string, why: string): string {
  return `The session was not linked (${why}): press 🔗 Link session on the chat’s card and paste ${sessionId}.`;
}

function channelName(id: string): string {
  return `#${PLAYGROUND_CHANNELS.find((c) => c.id === id)?.name ?? id}`;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The stand-in, whose waits end (with an error) once `stopped` says so: the bot is going away. */
function stoppable(slack: FakeSlack, stopped: () => boolean): FakeSlack {
  const STOPPED = Symbol('stopped');
  const waitFor = async <T>(
    pick: () => T | undefined | null | false | Promise<T | undefined | null | false>,
    timeoutMs?: number,
  ) => {
    const value = await slack.waitFor<T | typeof STOPPED>(() => (stopped() ? STOPPED : pick()), timeoutMs);
    if (value === STOPPED) throw new Error('the playground is stopping');
    return value;
  };
  return Object.assign(Object.create(slack) as FakeSlack, { waitFor });
}
