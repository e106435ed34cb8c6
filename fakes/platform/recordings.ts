/**
 * The simulator's call recordings: `GET /recordings/<callId>.wav` (outside the API, no key — a recording URL
 * the platform hands out is a plain link) answers a short generated WAV, the same for every call: a dial tone
 * rhythm a person can hear play in the playground's thread.
 */
import type { ServerResponse } from 'node:http';

export const RECORDINGS_PATH = '/recordings/';

/** Where sample events (`trigger/perform`) say their recording is: a link only, nothing answers there. */
export const SAMPLE_RECORDINGS_ORIGIN = 'https://recordings.example.com';
/** Where a cloned voice's preview is said to be (`PreviewUrl`: `<base><voiceId>/preview.mp3`); a link only. */
export const VOICE_PREVIEWS_BASE = 'https://cdn.example.com/voices/';

const RATE = 8_000;

/** 16-bit mono PCM, 8 kHz: two rings (440 + 480 Hz, as a ringback tone) and a short pause, about 2.4 s. */
function ringback(): Buffer {
  const seconds = [0.8, 0.4, 0.8, 0.4];
  const samples = Math.round(seconds.reduce((a, b) => a + b, 0) * RATE);
  const pcm = Buffer.alloc(samples * 2);
  let at = 0;
  seconds.forEach((length, i) => {
    const count = Math.round(length * RATE);
    for (let n = 0; n < count; n++, at++) {
      const t = n / RATE;
      const tone = i % 2 === 0 ? (Math.sin(2 * Math.PI * 440 * t) + Math.sin(2 * Math.PI * 480 * t)) / 2 : 0;
      pcm.writeInt16LE(Math.round(tone * 12_000), at * 2);
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
  header.writeUInt32LE(RATE * 2, 28); // bytes per second
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

let sample: Buffer | undefined;

/** The bytes every simulated recording has. */
export function sampleRecording(): Buffer {
  return (sample ??= ringback());
}

/** Answers a recording request (`path` under RECORDINGS_PATH); false when the path is not one. */
export function serveRecording(method: string, path: string, res: ServerResponse): boolean {
  if (
    method !== 'GET' ||
    !path.startsWith(RECORDINGS_PATH) ||
    !/^[\w.-]+\.wav$/.test(path.slice(RECORDINGS_PATH.length))
  )
    return false;
  const bytes = sampleRecording();
  res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(bytes.length) }).end(bytes);
  return true;
}
