/**
 * What the stand-in refused, so a test can fail when the bot sent something Slack would not take.
 *
 * A refusal is a Web API answer that is not `ok` (or not HTTP 200), a response_url answer that is not
 * 2xx, or an answer to an options request (`block_suggestion`) Slack would not show. Faults a test injected itself
 * (`SlackCall.injected`: `rateLimit`, `failMethod`, `failMethodFor`, `channelRateLimit`, `workspacePostLimit`,
 * `loseAnswer(s)`, `restrictChannel`, `archiveChannel`) are expected by construction; any other refusal must be
 * declared with `expectRefusal` or the after-each check fails.
 */
import type { ResponseUrlPost, SlackCall, SuggestionAnswer } from './types.js';

interface Expectation {
  method: string;
  error: string | undefined;
}

/** Every stand-in that is listening in this process (the after-each check walks them). */
const live = new Set<RefusalLedger>();

export function liveRefusalLedgers(): ReadonlySet<RefusalLedger> {
  return live;
}

export class RefusalLedger {
  private callsSeen = 0;
  private responsesSeen = 0;
  private suggestionsSeen = 0;
  private expected: Expectation[] = [];
  private closed = false;

  constructor(
    private readonly calls: readonly SlackCall[],
    private readonly responses: readonly ResponseUrlPost[],
    readonly name: string,
    private readonly suggestions: readonly SuggestionAnswer[] = [],
  ) {}

  open(): void {
    live.add(this);
  }

  /** A closed stand-in stays listed until its last refusals have been taken by the after-each check. */
  close(): void {
    this.closed = true;
  }

  /** The stand-in's `reset()` empties the recordings: start counting from zero again. */
  reset(): void {
    this.callsSeen = 0;
    this.responsesSeen = 0;
    this.suggestionsSeen = 0;
  }

  /** `method` is a Web API method, `response_url` or `block_suggestion`; without `error`, any refusal of it. */
  expect(method: string, error?: string): void {
    this.expected.push({ method, error });
  }

  /**
   * Undeclared refusals since the last call, described one per line; then forgets the declarations,
   * which last for one test.
   */
  takeUnexpected(): string[] {
    const found: string[] = [];
    for (const call of this.calls.slice(this.callsSeen)) {
      if (call.injected || (call.status === 200 && call.response.ok === true)) continue;
      const error = typeof call.response.error === 'string' ? call.response.error : `HTTP ${call.status}`;
      if (this.declared(call.method, error)) continue;
      const messages = (call.response.response_metadata as { messages?: unknown } | undefined)?.messages;
      found.push(`${call.method} → ${error}${Array.isArray(messages) ? ` ${messages.join('; ')}` : ''}`);
    }
    for (const post of this.responses.slice(this.responsesSeen)) {
      if (post.status >= 200 && post.status < 300) continue;
      const error = post.error ?? `HTTP ${post.status}`;
      if (this.declared('response_url', error)) continue;
      found.push(`response_url → HTTP ${post.status} ${error}${post.messages ? ` ${post.messages.join('; ')}` : ''}`);
    }
    for (const answer of this.suggestions.slice(this.suggestionsSeen)) {
      if (answer.errors.length === 0 || this.declared('block_suggestion', answer.errors[0] ?? '')) continue;
      found.push(`block_suggestion ${answer.blockId}/${answer.actionId} → ${answer.errors.join('; ')}`);
    }
    this.callsSeen = this.calls.length;
    this.responsesSeen = this.responses.length;
    this.suggestionsSeen = this.suggestions.length;
    this.expected = [];
    if (this.closed) live.delete(this);
    return found;
  }

  private declared(method: string, error: string): boolean {
    return this.expected.some((e) => e.method === method && (e.error === undefined || e.error === error));
  }
}
