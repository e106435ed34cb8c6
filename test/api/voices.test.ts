/**
 * POST /voices: multipart/form-data with one `files` part per sample, streamed from Buffers, Node streams,
 * Blobs and async iterables. The fake parses the body, so these assert what the platform really received.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiTimeoutError,
  CampaignClient,
  PlatformError,
  createTransport,
} from '../../src/api/index.js';
import { encodeMultipart } from '../../src/api/multipart.js';
import { WORKSPACE, rejectionOf, usePlatform } from './support.js';

const h = usePlatform();

/** A Node stream that produces `total` bytes lazily in `chunk`-sized pieces, recording how far it got. */
function lazyStream(data: Buffer, chunk: number): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= data.length) {
        this.push(null);
        return;
      }
      this.push(data.subarray(offset, offset + chunk));
      offset += chunk;
    },
  });
}

function received() {
  const req = h.received('POST', '/voices');
  expect(req).toHaveLength(1);
  return req[0]!;
}

describe('voices.clone', () => {
  it('uploads two files — one from a Node stream — byte for byte, with the text fields', async () => {
    const sampleA = randomBytes(300_000);
    const sampleB = randomBytes(1_500_000);

    const voice = await h.client.voices.clone({
      name: 'Dana (warm)',
      language: 'en-US',
      gender: 'female',
      provider: 'elevenlabs',
      description: 'Front desk voice',
      removeBackgroundNoise: true,
      files: [
        { filename: 'sample-a.wav', contentType: 'audio/wav', data: sampleA },
        { filename: 'sample-b.mp3', contentType: 'audio/mpeg', data: lazyStream(sampleB, 64 * 1024) },
      ],
    });

    const req = received();
    expect(req.headers['api-key']).toBe(h.platform.apiKey);
    expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=.+/);
    // a stream of unknown size: chunked, no Content-Length
    expect(req.headers['content-length']).toBeUndefined();
    expect(req.multipart!.fields).toEqual({
      name: 'Dana (warm)',
      language: 'en-US',
      gender: 'female',
      provider: 'elevenlabs',
      description: 'Front desk voice',
      removeBackgroundNoise: 'true',
    });
    const files = req.multipart!.files;
    expect(files.map((f) => [f.field, f.filename, f.contentType])).toEqual([
      ['files', 'sample-a.wav', 'audio/wav'],
      ['files', 'sample-b.mp3', 'audio/mpeg'],
    ]);
    expect(files[0]!.data.equals(sampleA)).toBe(true);
    expect(files[1]!.data.equals(sampleB)).toBe(true);

    expect(voice).toMatchObject({ Name: 'Dana (warm)', Language: 'en-US', Gender: 'female', Provider: 'elevenlabs' });
    expect(voice.RowKey).toBe(h.platform.state.voices[0]!.RowKey);
    expect(typeof voice.ProviderSettings).toBe('string');
  });

  it('streams Blobs and async iterables; with every size known it sends an exact Content-Length', async () => {
    const blobBytes = randomBytes(70_000);
    const iterBytes = randomBytes(50_000);
    async function* iterable(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < iterBytes.length; i += 10_000) {
        await new Promise(setImmediate); // an asynchronous source, like a download
        yield new Uint8Array(iterBytes.subarray(i, i + 10_000));
      }
    }

    await h.client.voices.clone({
      name: 'n',
      language: 'de',
      gender: 'male',
      provider: 'p',
      removeBackgroundNoise: false,
      files: [
        { filename: 'a.ogg', contentType: 'audio/ogg', data: new Blob([blobBytes]) },
        { filename: 'b.ogg', contentType: 'audio/ogg', data: iterable(), size: iterBytes.length },
      ],
    });

    const req = received();
    expect(req.headers['content-length']).toBe(String(req.raw.length));
    expect(req.headers['transfer-encoding']).toBeUndefined();
    expect(req.multipart!.fields.removeBackgroundNoise).toBe('false');
    expect(req.multipart!.fields).not.toHaveProperty('description');
    expect(req.multipart!.files[0]!.data.equals(blobBytes)).toBe(true);
    expect(req.multipart!.files[1]!.data.equals(iterBytes)).toBe(true);
  });

  it('omits removeBackgroundNoise when not given', async () => {
    await h.client.voices.clone({
      name: 'n',
      language: 'en',
      gender: 'male',
      provider: 'p',
      files: [{ filename: 'a.wav', contentType: 'audio/wav', data: Buffer.from('RIFF') }],
    });
    expect(received().multipart!.fields).toEqual({ name: 'n', language: 'en', gender: 'male', provider: 'p' });
  });

  it('escapes quotes and line breaks in filenames so they cannot break the part headers', async () => {
    const data = Buffer.from('audio');
    await h.client.voices.clone({
      name: 'n',
      language: 'en',
      gender: 'male',
      provider: 'p',
      files: [
        { filename: 'take "one"\r\nContent-Type: text/html.wav', contentType: 'audio/wav\r\nX-Evil: 1', data },
        { filename: 'stimme-ü.wav', contentType: 'audio/wav', data },
      ],
    });

    const req = received();
    const raw = req.raw.toString('utf8');
    expect(raw).toContain('filename="take %22one%22%0D%0AContent-Type: text/html.wav"');
    expect(raw).not.toContain('X-Evil');
    expect(req.multipart!.files.map((f) => f.filename)).toEqual([
      'take "one"\r\nContent-Type: text/html.wav',
      'stimme-ü.wav',
    ]);
    expect(req.multipart!.files[0]!.contentType).toBe('application/octet-stream');
    expect(Object.keys(req.multipart!.fields)).toEqual(['name', 'language', 'gender', 'provider']);
  });

  it('a declared size that the stream does not match fails the upload', async () => {
    const err = await rejectionOf(
      h.client.voices.clone({
        name: 'n',
        language: 'en',
        gender: 'male',
        provider: 'p',
        files: [{ filename: 'a.wav', contentType: 'audio/wav', data: Readable.from([Buffer.from('12345')]), size: 3 }],
      }),
    );
    expect(err).toBeInstanceOf(PlatformError);
    expect((err as PlatformError).message).toMatch(/a\.wav.*declared 3 bytes/);
    expect(h.platform.state.voices).toEqual([]);
  });

  it('is never retried: a reset mid-upload is one request and an ApiConnectionError', async () => {
    h.platform.inject({ path: '/voices', reset: true });
    const err = await rejectionOf(
      h.client.voices.clone({
        name: 'n',
        language: 'en',
        gender: 'male',
        provider: 'p',
        files: [{ filename: 'a.wav', contentType: 'audio/wav', data: lazyStream(randomBytes(100_000), 8192) }],
      }),
    );
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(h.received('POST', '/voices')).toHaveLength(1);
  });
});

describe('voices.clone timeouts', () => {
  it('waits up to slowHeadersTimeoutMs, not headersTimeoutMs, for the clone to answer', async () => {
    // undici's header timer ticks at ~1 s resolution, hence the generous gaps.
    const transport = createTransport({
      baseUrl: h.platform.url,
      headersTimeoutMs: 100,
      slowHeadersTimeoutMs: 6_000,
      getRetries: 0,
    });
    try {
      const client = new CampaignClient(transport, h.platform.apiKey, WORKSPACE);
      h.platform.inject({ path: '/voices', delayMs: 2_500 });
      h.platform.inject({ path: '/customer-quota', delayMs: 2_500 });
      const file = { filename: 'a.wav', contentType: 'audio/wav', data: Buffer.from('RIFF') };

      const voice = await client.voices.clone({
        name: 'slow',
        language: 'en',
        gender: 'male',
        provider: 'p',
        files: [file],
      });

      expect(voice.Name).toBe('slow');
      expect(await rejectionOf(client.quota.list())).toBeInstanceOf(ApiTimeoutError);
    } finally {
      await transport.close();
    }
  });
});

describe('encodeMultipart', () => {
  it('pulls file data only as the body is consumed (no up-front buffering)', async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 1000; i++) {
        await new Promise(setImmediate);
        pulled++;
        yield new Uint8Array(1024);
      }
    }
    const body = encodeMultipart(
      [['name', 'n']],
      [{ field: 'files', filename: 'a.wav', contentType: 'audio/wav', data: source() }],
    );
    const chunks = body.chunks();

    for (let i = 0; i < 5; i++) await chunks.next();

    // 1 text part + 1 file header + 3 data chunks
    expect(pulled).toBe(3);
    await chunks.return(undefined);
  });

  it('computes the exact length when sizes are known', async () => {
    const body = encodeMultipart(
      [['name', 'ñame']],
      [
        { field: 'files', filename: 'ä.wav', contentType: 'audio/wav', data: Buffer.from('abc') },
        {
          field: 'files',
          filename: 'b.wav',
          contentType: 'audio/wav',
          data: Readable.from([Buffer.from('defg')]),
          size: 4,
        },
      ],
      'BOUNDARY',
    );
    const parts: Uint8Array[] = [];
    for await (const c of body.chunks()) parts.push(c);
    const encoded = Buffer.concat(parts);

    expect(body.length).toBe(encoded.length);
    expect(encoded.toString('utf8')).toBe(
      '--BOUNDARY\r\nContent-Disposition: form-data; name="name"\r\n\r\nñame\r\n' +
        '--BOUNDARY\r\nContent-Disposition: form-data; name="files"; filename="ä.wav"\r\nContent-Type: audio/wav\r\n\r\nabc\r\n' +
        '--BOUNDARY\r\nContent-Disposition: form-data; name="files"; filename="b.wav"\r\nContent-Type: audio/wav\r\n\r\ndefg\r\n' +
        '--BOUNDARY--\r\n',
    );
  });
});
