/**
 * What a `/campaign` subcommand is, and what it gets when it runs.
 */
import type { App, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { MessagePayload } from '../slack/blocks.js';
import type { Deps } from '../app/deps.js';
import type { FailureWording } from '../app/failure.js';
import type { Refusal } from '../app/membership.js';
import type { CustomerView } from '../app/customer-view.js';

export interface Subcommand {
  name: string;
  /** Shown in help, e.g. `bookings <campaignId>`. */
  usage: string;
  summary: string;
  /** Admin subcommands run only for workspace admins/owners or ADMIN_USER_IDS (full members, always). */
  admin?: boolean;
  /**
   * `members`: it shows customer data (names, numbers, e-mails, message texts), so it runs only for active
   * full members of the workspace — not guests, people of another organisation, or deactivated users.
   * Without it, everyone in the workspace may run it. The dispatcher (and the list's Previous/Next) enforce it.
   */
  audience?: 'members';
  /**
   * With `audience: 'members'`, the sentence for someone who is not a full member, when the reason is not
   * customer data (e.g. `shift`: agents on shift are handed chats). Default: the customer-data sentence.
   */
  refusal?(refusal: Refusal): string;
  /**
   * It sets up or reads what one channel gets: in a direct message it does not run, and the user reads
   * `/campaign <name> works in a channel.` and this sentence — where to run it instead, and why not here.
   */
  inChannel?: string;
  /** Admins' only with these arguments (they change something; its run() checks): for who-may-run labels. */
  adminWhen?(args: readonly string[]): boolean;
  /** It deletes or replaces something: the admin check asks Slack afresh instead of trusting the cache. */
  destructive?: boolean;
  /** Read commands accept `--public` to post the answer in the channel. */
  readOnly?: boolean;
  /** Positional argument count accepted (after flags are removed). */
  args: { min: number; max: number };
  /**
   * It takes free text (a saved reply's words): no `--flags` are read from it and its argument count is not
   * checked; it reads `CommandContext.text`.
   */
  freeText?: boolean;
  run(ctx: CommandContext): Promise<void>;
  /** How this subcommand words upstream failures (e.g. which thing a 404 means). */
  failures?(ctx: CommandContext): FailureWording;
  /** Its modal submissions and button actions. */
  register?(app: App, deps: Deps): void;
}

export interface CommandContext {
  args: string[];
  /** The text after the subcommand's name as Slack sent it: spacing, line breaks, entities and markup kept. */
  text: string;
  /** `--public` was given (only for read commands). */
  isPublic: boolean;
  teamId: string;
  /** The workspace's Enterprise Grid org, when it has one (who counts as of the same organisation). */
  enterpriseId: string | undefined;
  userId: string;
  /** The user's Slack name as the command carried it (`user_name`): how posts name them without a mention. */
  userName: string;
  channelId: string;
  triggerId: string;
  responseUrl: string;
  client: WebClient;
  logger: Logger;
  deps: Deps;
  /** Sends the answer: ephemeral, or in the channel with `--public`. */
  reply(message: MessagePayload): Promise<void>;
  /** How the answer may show customers: in full in private, as the channel may see them with `--public`. */
  customerView(): Promise<CustomerView>;
  /** One plain sentence, always ephemeral (errors, usage). */
  tell(sentence: string): Promise<void>;
  /**
   * A failure, always ephemeral: `lead` (what was or was not done), then the failure's sentence, and the
   * platform's reference (status, code, request id) in a context line (src/app/failure.ts).
   */
  tellFailure(err: unknown, wording?: FailureWording, lead?: string): Promise<void>;
  respond: RespondFn;
}
