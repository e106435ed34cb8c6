/**
 * Step inputs as Slack sends them in `function_executed` (`inputs`): strings, the person using the workflow. An input the workflow
 * leaves empty may arrive absent, null or as an empty string: all three are "not given".
 */
import { z } from 'zod';

const absentAsUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** A required text input, trimmed. */
export const requiredText = (max: number) => z.string().trim().min(1).max(max);

/** An optional text input, trimmed; empty counts as not given. */
export const optionalText = (max: number) => z.preprocess(absentAsUndefined, z.string().trim().max(max).optional());

/**
 * The person who used the workflow (`slack#/types/user_context`, https://docs.slack.dev/reference/types/user_context-type):
 * Slack fills it — a builder can't — so it is the one input a step may take as who it acts for. `secret` is
 * Slack's own check of `id`; the step reads the id only.
 */
export const userContext = z.object({ id: z.string().regex(/^[UW][A-Z0-9]{2,}$/), secret: z.string().min(1) });

/** A campaign as the commands take it: its id or its name (`chooseCampaign`). */
export const CAMPAIGN_MAX = 200;

/** The name of that input wherever a step acts for someone (manifest.yml). */
export const RUN_BY = 'run_by';
