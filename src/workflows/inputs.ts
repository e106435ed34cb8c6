/**
 * Step inputs as Slack sends them in `function_executed` (`inputs`): strings, user ids. An input the workflow
 * leaves empty may arrive absent, null or as an empty string: all three are "not given".
 */
import { z } from 'zod';

const absentAsUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** A required text input, trimmed. */
export const requiredText = (max: number) => z.string().trim().min(1).max(max);

/** An optional text input, trimmed; empty counts as not given. */
export const optionalText = (max: number) => z.preprocess(absentAsUndefined, z.string().trim().max(max).optional());

/** A Slack user id (`slack#/types/user_id`). */
export const userId = z.string().regex(/^[UW][A-Z0-9]{2,}$/);

export const optionalUserId = z.preprocess(absentAsUndefined, userId.optional());

/** A campaign as the commands take it: its id or its name (`chooseCampaign`). */
export const CAMPAIGN_MAX = 200;
