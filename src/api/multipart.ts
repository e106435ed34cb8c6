import { randomBytes } from 'node:crypto';

/** File contents accepted for upload. Streams and iterables are read lazily, exactly once. */
export type FileData = Blob | NodeJS.ReadableStream | AsyncIterable<Uint8Array> | Buffer;

export interface MultipartFile {
  field: string;
  filename: string;
  contentType: string;
  data: FileData;
  /** Byte size; lets the body carry a Content-Length. Checked against what a stream actually yields. */
  size?: number;
}

export interface MultipartBody {
  /** `multipart/form-data; boundary=…` */
  contentType: string;
  /** Total byte length when every file size is known up front, otherwise undefined (chunked upload). */
  length: number | undefined;
  /** Produces the encoded body chunk by chunk, pulling file data only as the socket asks for it. */
  chunks: () => AsyncGenerator<Uint8Array>;
}

const CRLF = '\r\n';
const encoder = new TextEncoder();

/** HTML's multipart/form-data rule: newlines and quotes in names and filenames are percent-escaped. */
function escapeQuoted(value: string): string {
  return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

/** A content type with CR/LF could inject headers into the part; fall back to the generic type. */
function safeContentType(contentType: string): string {
  return contentType === '' || /[\r\n]/.test(contentType) ? 'application/octet-stream' : contentType;
}

function knownSize(file: MultipartFile): number | undefined {
  if (Buffer.isBuffer(file.data)) return file.data.length;
  if (file.data instanceof Blob) return file.data.size;
  return file.size;
}

async function* fileChunks(data: FileData): AsyncGenerator<Uint8Array> {
  if (Buffer.isBuffer(data)) {
    yield data;
    return;
  }
  // Blob.stream() is a web ReadableStream, async-iterable in Node 20.
  const source: AsyncIterable<unknown> = data instanceof Blob ? data.stream() : data;
  for await (const chunk of source) {
    // A Node stream with setEncoding() yields strings.
    if (typeof chunk === 'string') yield Buffer.from(chunk);
    else if (chunk instanceof Uint8Array) yield chunk;
    else throw new TypeError('file streams must yield bytes (Uint8Array/Buffer) or strings');
  }
}

export class FileSizeMismatchError extends Error {
  override name = 'FileSizeMismatchError';
}

/**
 * Encodes text fields and files as multipart/form-data (RFC 7578), text fields first. Nothing is buffered
 * beyond the chunk in flight, so large audio samples go straight from their source to the socket.
 */
export function encodeMultipart(
  fields: ReadonlyArray<readonly [string, string]>,
  files: readonly MultipartFile[],
  boundary = `----campaign-form-${randomBytes(16).toString('hex')}`,
): MultipartBody {
  const fieldParts = fields.map(([name, value]) =>
    encoder.encode(
      `--${boundary}${CRLF}Content-Disposition: form-data; name="${escapeQuoted(name)}"${CRLF}${CRLF}${value}${CRLF}`,
    ),
  );
  const fileHeads = files.map((file) =>
    encoder.encode(
      `--${boundary}${CRLF}Content-Disposition: form-data; name="${escapeQuoted(file.field)}"; ` +
        `filename="${escapeQuoted(file.filename)}"${CRLF}Content-Type: ${safeContentType(file.contentType)}${CRLF}${CRLF}`,
    ),
  );
  const crlf = encoder.encode(CRLF);
  const closing = encoder.encode(`--${boundary}--${CRLF}`);

  const sizes = files.map(knownSize);
  let length: number | undefined = undefined;
  if (sizes.every((s): s is number => s !== undefined)) {
    length =
      fieldParts.reduce((n, p) => n + p.length, 0) +
      fileHeads.reduce((n, h) => n + h.length, 0) +
      sizes.reduce((n, s) => n + s + crlf.length, 0) +
      closing.length;
  }

  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (const part of fieldParts) yield part;
    for (const [i, file] of files.entries()) {
      yield fileHeads[i]!;
      let sent = 0;
      const declared = sizes[i];
      for await (const chunk of fileChunks(file.data)) {
        sent += chunk.length;
        // Fail before sending more than the Content-Length promised.
        if (declared !== undefined && sent > declared) {
          throw new FileSizeMismatchError(`file "${file.filename}": declared ${declared} bytes but read more`);
        }
        yield chunk;
      }
      if (declared !== undefined && declared !== sent) {
        throw new FileSizeMismatchError(`file "${file.filename}": declared ${declared} bytes but read ${sent}`);
      }
      yield crlf;
    }
    yield closing;
  }

  return { contentType: `multipart/form-data; boundary=${boundary}`, length, chunks };
}
