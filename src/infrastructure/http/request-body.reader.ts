import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import { createHash } from 'node:crypto';
import { BodyTooDeepError, carriesJsonBody, carriesStatementBody, MAX_BODY_BYTES, MAX_BODY_TEXT, MAX_JSON_DEPTH, nestsDeeperThan, STATEMENT_UPLOAD } from './request-body-limits.js';

/**
 * Why a body was refused at the edge, as the HTTP error filter reads it: `type` names the case
 * (the names body-parser gave them, which the filter and its tests already know), `status` the
 * 4xx it answers. `expose` says the message is about the request, not the service.
 */
export class RequestBodyError extends Error {
  readonly expose = true;

  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    /** The largest body this request could have sent, as a 413 says it. */
    readonly limitText = MAX_BODY_TEXT,
  ) {
    super(message);
    this.name = 'RequestBodyError';
  }
}

/**
 * A file sent as the raw body (a statement, see STATEMENT_UPLOAD): its bytes as they came, once
 * decompressed, with its media type and declared charset. As JSON (an Idempotency-Key's
 * fingerprint of the request) it is its media type and a digest of its bytes.
 */
export class UploadedFile {
  constructor(
    readonly mediaType: string,
    readonly charset: string | undefined,
    readonly bytes: Buffer,
  ) {}

  toJSON(): { mediaType: string; charset: string | null; sha256: string } {
    return { mediaType: this.mediaType, charset: this.charset ?? null, sha256: createHash('sha256').update(this.bytes).digest('base64url') };
  }
}

/** What reading a request's body gave: the parsed JSON and its bytes, nothing (not JSON, or none), or why it was refused. */
export type RequestBody =
  | { readonly kind: 'json'; readonly value: unknown; readonly raw: Buffer }
  | { readonly kind: 'file'; readonly file: UploadedFile }
  | { readonly kind: 'none' }
  | { readonly kind: 'refused'; readonly error: Error };

/**
 * Reads a request's body as the API takes it: only `application/json` on POST, PUT and PATCH
 * (any other body is left unread and the operation sees none), in a UTF charset (else 415),
 * identity, gzip, deflate or br encoded (else 415), at most MAX_BODY_BYTES once decoded (413),
 * valid JSON of any kind, an empty body being `{}` (else 400), nested at most MAX_JSON_DEPTH (400).
 * A refused body is still read to its end, so the connection stays usable for the next request.
 */
export async function readRequestBody(request: IncomingMessage): Promise<RequestBody> {
  if (!hasBody(request)) return { kind: 'none' };
  if (carriesStatementBody(request)) return readUploadedFile(request);
  if (!carriesJsonBody(request)) return { kind: 'none' };
  const charset = charsetOf(request.headers['content-type']) ?? 'utf-8';
  if (!charset.startsWith('utf-') || !iconv.encodingExists(charset)) return refuse(request, new RequestBodyError(415, 'charset.unsupported', `unsupported charset "${charset.toUpperCase()}"`));
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoded = decodingStream(encoding);
  if (decoded === null) return refuse(request, new RequestBodyError(415, 'encoding.unsupported', `unsupported content encoding "${encoding}"`));
  const declared = encoding === 'identity' ? Number(request.headers['content-length']) : Number.NaN;
  if (declared > MAX_BODY_BYTES) return refuse(request, tooLarge());
  const read = await readAll(decoded === 'identity' ? request : request.pipe(decoded), Number.isNaN(declared) ? null : declared);
  if (decoded !== 'identity') {
    request.unpipe(decoded);
    decoded.on('error', () => undefined);
    decoded.destroy();
  }
  if (read instanceof Error) return refuse(request, read);
  const text = iconv.decode(read, charset);
  let value: unknown;
  try {
    value = text.length === 0 ? {} : JSON.parse(text);
  } catch {
    return { kind: 'refused', error: new RequestBodyError(400, 'entity.parse.failed', 'The request body is not valid JSON.') };
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return { kind: 'refused', error: new BodyTooDeepError() };
  return { kind: 'json', value, raw: read };
}

/**
 * A statement file, as bytes: any charset the service can decode (else 415), the encodings JSON
 * takes, at most STATEMENT_UPLOAD.maxBytes once decoded (413).
 */
async function readUploadedFile(request: IncomingMessage): Promise<RequestBody> {
  const charset = charsetOf(request.headers['content-type']);
  if (charset !== undefined && !iconv.encodingExists(charset)) return refuse(request, new RequestBodyError(415, 'file.charset.unsupported', `unsupported charset "${String(charset).toUpperCase()}"`));
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoded = decodingStream(encoding);
  if (decoded === null) return refuse(request, new RequestBodyError(415, 'file.encoding.unsupported', `unsupported content encoding "${encoding}"`));
  const limit = { bytes: STATEMENT_UPLOAD.maxBytes, text: STATEMENT_UPLOAD.maxText };
  const declared = encoding === 'identity' ? Number(request.headers['content-length']) : Number.NaN;
  if (declared > limit.bytes) return refuse(request, tooLarge(limit.text));
  const read = await readAll(decoded === 'identity' ? request : request.pipe(decoded), Number.isNaN(declared) ? null : declared, limit);
  if (decoded !== 'identity') {
    request.unpipe(decoded);
    decoded.on('error', () => undefined);
    decoded.destroy();
  }
  if (read instanceof Error) return refuse(request, read);
  const mediaType = String(request.headers['content-type']).split(';')[0].trim().toLowerCase();
  return { kind: 'file', file: new UploadedFile(mediaType, charset, read) };
}

/** A request carries a body when it says how long it is or that it comes in chunks (type-is's `hasBody`). */
function hasBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number.parseInt(request.headers['content-length'] ?? '', 10));
}

function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  return match ? (match[1] ?? match[2]).toLowerCase() : undefined;
}

function decodingStream(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | 'identity' | null {
  switch (encoding) {
    case 'identity':
      return 'identity';
    case 'gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

const tooLarge = (limitText = MAX_BODY_TEXT) => new RequestBodyError(413, 'entity.too.large', 'request entity too large', limitText);

/** Every byte of `stream` up to the limit (MAX_BODY_BYTES), or why not; `declared` (Content-Length) must match what came. */
function readAll(stream: Readable, declared: number | null, limit = { bytes: MAX_BODY_BYTES, text: MAX_BODY_TEXT }): Promise<Buffer | Error> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (outcome: Buffer | Error) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('aborted', onAborted);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit.bytes) return finish(tooLarge(limit.text));
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (declared !== null && received !== declared) return finish(new RequestBodyError(400, 'request.size.invalid', 'request size did not match content length'));
      finish(Buffer.concat(chunks, received));
    };
    const onError = (error: Error) => finish(new RequestBodyError(400, (error as { type?: string }).type ?? 'request.unreadable', error.message));
    const onAborted = () => finish(new RequestBodyError(400, 'request.aborted', 'request aborted'));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('aborted', onAborted);
  });
}

/** Reads off the rest of a refused request, so its answer is not taken for the end of the connection. */
function refuse(request: IncomingMessage, error: Error): Promise<RequestBody> {
  return new Promise((resolve) => {
    const done = () => resolve({ kind: 'refused', error });
    if (request.complete || request.destroyed) return done();
    request.once('end', done);
    request.once('close', done);
    request.resume();
  });
}
