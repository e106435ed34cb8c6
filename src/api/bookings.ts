import { z } from 'zod';
import { listEnvelope, openEnum, tableRowFields } from './schema.js';
import type { KeyedTransport } from './transport.js';

const BOOKING_STATUSES = ['booking', 'success', 'fail'] as const;

const bookingSchema = z.looseObject({
  ...tableRowFields,
  BookingDate: z.string().optional(),
  CallId: z.string().optional(),
  CustomerEmail: z.string().optional(),
  CustomerName: z.string().optional(),
  CalendarId: z.string().optional(),
  /** Why the booking failed (Status 'fail'). */
  Reason: z.string().optional(),
  Status: openEnum(BOOKING_STATUSES).optional(),
});
export type Booking = z.infer<typeof bookingSchema>;

const bookingListSchema = listEnvelope(bookingSchema);

export interface BookingsApi {
  list(campaignId: string): Promise<Booking[]>;
}

export function bookingsApi(transport: KeyedTransport): BookingsApi {
  return {
    async list(campaignId) {
      const body = await transport.requestJson(
        { method: 'GET', path: '/campaign/{campaignId}/bookings', params: { campaignId } },
        bookingListSchema,
      );
      return body.value;
    },
  };
}
