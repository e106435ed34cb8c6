/**
 * The workspace's last business-verification submission, as the platform answered it (202): what
 * `/campaign verify` shows before anyone submits again (each submit enqueues another review). Only what the
 * answer shows is kept — statuses, failures, CNAM numbers and display name — never the business form data.
 */
import { z } from 'zod';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { parseStored } from './stored-json.js';

const failures = z.array(z.object({ code: z.string().optional(), message: z.string().optional() })).nullable();

const submissionSchema = z.object({
  /** Epoch ms of the submit, and who pressed Submit for review. */
  submittedAt: z.number(),
  submittedBy: z.string(),
  statuses: z.object({
    secondaryProfile: z.string().nullable(),
    trustProduct: z.string().nullable(),
    voiceIntegrity: z.string().nullable(),
    cnam: z.string().nullable(),
  }),
  providerFailures: failures,
  voiceIntegrityFailures: failures,
  cnamFailures: failures,
  cnamPhoneNumbers: z.array(z.string()),
  cnamDisplayName: z.string().nullable(),
  lastUpdated: z.string().nullable(),
});
export type VerificationSubmission = z.infer<typeof submissionSchema>;

export class VerificationRepo {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
  ) {}

  async last(teamId: string): Promise<VerificationSubmission | undefined> {
    return parseStored(submissionSchema, await this.kv.get(this.keys.verification(teamId)));
  }

  async save(teamId: string, submission: VerificationSubmission): Promise<void> {
    await this.kv.set(this.keys.verification(teamId), JSON.stringify(submission));
  }
}
