import { z } from 'zod';

/**
 * Shared building blocks for response schemas. Responses are validated tolerantly: objects are loose
 * (unknown fields pass through), documented fields are optional unless the spec marks them required,
 * but a documented field with the wrong type fails.
 */

/** The table-style fields every `value` row carries (spec section 2). */
export const tableRowFields = {
  PartitionKey: z.string().optional(),
  RowKey: z.string().optional(),
  Timestamp: z.string().optional(),
  'odata.etag': z.string().optional(),
};

/**
 * `{ "odata.metadata": string, value: Row[] }`. `value` is required: a list endpoint whose answer has no
 * list is a contract break, not an empty list.
 */
export function listEnvelope<Row extends z.ZodType>(row: Row) {
  return z.looseObject({
    'odata.metadata': z.string().optional(),
    value: z.array(row),
  });
}

/** Review status of the verification profile and its add-ons (spec section 3). */
const REVIEW_STATUSES = ['draft', 'pending-review', 'in-review', 'twilio-approved', 'twilio-rejected'] as const;
export const reviewStatus = openEnum(REVIEW_STATUSES);

/**
 * A documented enum the platform may grow: known values stay typed for renderers, an unknown string is
 * accepted (a new status must not make a whole list unreadable); a non-string still fails.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(_values: T) {
  return z.string() as unknown as z.ZodType<T[number] | (string & {}), string>;
}
