import { z } from 'zod';
import { encodeMultipart } from './multipart.js';
import type { FileData } from './multipart.js';
import { tableRowFields } from './schema.js';
import type { KeyedTransport, TurnListener } from './transport.js';

/** An audio sample to upload. Streams/iterables are streamed to the platform, never buffered whole. */
type VoiceFile = {
  filename: string;
  contentType: string;
  data: FileData;
  /** Byte size when known; with sizes for every file the upload gets a Content-Length instead of chunked encoding. */
  size?: number;
};

interface CloneVoiceInput {
  files: VoiceFile[];
  name: string;
  language: string;
  /** Allowed values are not documented; the platform validates them. */
  gender: string;
  provider: string;
  description?: string;
  removeBackgroundNoise?: boolean;
  /** Told when the clone must wait behind the workspace's other clones, and when it then starts. Not sent. */
  turn?: TurnListener;
}

const voiceSchema = z.looseObject({
  ...tableRowFields,
  Name: z.string().optional(),
  Description: z.string().optional(),
  Gender: z.string().optional(),
  Language: z.string().optional(),
  Provider: z.string().optional(),
  ProviderID: z.string().optional(),
  PreviewUrl: z.string().optional(),
  /** JSON-encoded provider settings, left as the string the platform sent. */
  ProviderSettings: z.string().optional(),
});
export type Voice = z.infer<typeof voiceSchema>;

export interface VoicesApi {
  clone(input: CloneVoiceInput): Promise<Voice>;
}

export function voicesApi(transport: KeyedTransport): VoicesApi {
  return {
    clone(input) {
      const fields: [string, string][] = [
        ['name', input.name],
        ['language', input.language],
        ['gender', input.gender],
        ['provider', input.provider],
      ];
      if (input.description !== undefined) fields.push(['description', input.description]);
      if (input.removeBackgroundNoise !== undefined) {
        fields.push(['removeBackgroundNoise', input.removeBackgroundNoise ? 'true' : 'false']);
      }
      const multipart = encodeMultipart(
        fields,
        input.files.map((f) => ({ field: 'files', ...f })),
      );
      // Cloning runs the samples through the voice provider before answering: a slow upload (its own pool,
      // a few at a time per workspace, a long headers timeout).
      return transport.requestJson(
        { method: 'POST', path: '/voices', multipart, slow: true, ...(input.turn ? { turn: input.turn } : {}) },
        voiceSchema,
      );
    },
  };
}
