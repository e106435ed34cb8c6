/**
 * The simulator's call recordings: `GET /recordings/<callId>.wav` (outside the API, no key — a recording URL
 * the platform hands out is a plain link) answers a generated WAV as long as the call: a ringback tone, then
 * silence to the call's end, so the player in the playground's thread shows the duration the card says.
 */
import type { ServerResponse } from 'node:http';
import type { PlatformState } from './seed.js';

export const RECORDINGS_PATH = '/recordings/';

/** Where sample events (`trigger/perform`) say their recording is: a link only, nothing answers there. */
export const SAMPLE_RECORDINGS_ORIGIN = 'https://recordings.example.com';
/** Where a cloned voice's preview is said to be (`PreviewUrl`: `<base><voiceId>/preview.mp3`); a link only. */
export const VOICE_PREVIEWS_BASE = 'https://cdn.example.com/voices/';
/** The sample call of `trigger/perform`: its card's duration, and its recording's. */
export const SAMPLE_CALL = { id: 'call-sample-0001', durationMs: 154_250 };

/** 8-bit mono PCM at telephone rate: 8 KB a second, about 3.4 MB for the simulator's longest call (7 min). */
const RATE = 8_000;
const SILENCE = 128;
/** Two rings (440 + 480 Hz, as a ringback tone), each followed by a pause: the first 2.4 s. */
const RINGBACK_S = [0.8, 0.4, 0.8, 0.4];

/** A recording `durationMs` long (at least the ringback), as a WAV file. */
function recording(durationMs: number): Buffer {
  const ringSamples = Math.round(RINGBACK_S.reduce((a, b) => a + b, 0) * RATE);
  const pcm = Buffer.alloc(Math.max(ringSamples, Math.round((durationMs / 1000) * RATE)), SILENCE);
  let at = 0;
  RINGBACK_S.forEach((length, i) => {
    const count = Math.round(length * RATE);
    for (let n = 0; n < count; n++, at++) {
      const t = n / RATE;
      const tone = i % 2 === 0 ? (Math.sin(2 * Math.PI * 440 * t) + Math.sin(2 * Math.PI * 480 * t)) / 2 : 0;
      pcm[at] = SILENCE + Math.round(tone * 48);
    }
  });
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE, 28); // bytes per second
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** The recording of call `name` (`<callId>.wav`, or the sample's `.mp3`): as long as the call was. */
export function recordingOf(state: PlatformState, name: string): Buffer {
  const callId = name.replace(/\.\w+$/, '');
  return recording(Object.hasOwn(state.callDurations, callId) ? (state.callDurations[callId] ?? 0) : 0);
}

/** Answers a recording request (`path` under RECORDINGS_PATH); false when the path is not one. */
export function serveRecording(state: PlatformState, method: string, path: string, res: ServerResponse): boolean {
  const name = path.slice(RECORDINGS_PATH.length);
  if (method !== 'GET' || !path.startsWith(RECORDINGS_PATH) || !/^[\w.-]+\.wav$/.test(name)) return false;
  const bytes = recordingOf(state, name);
  res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(bytes.length) }).end(bytes);
  return true;
}
