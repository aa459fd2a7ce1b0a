import { badRequest, HttpError } from '@app/common'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { MAX_UPLOAD_BYTES } from '../images/process.ts'

/** Room for the multipart envelope (boundaries, part headers) around a file at the limit. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024
export const MAX_REQUEST_BYTES = MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES
export const FIELD_NAME = 'meme'

export const lengthRequired = () =>
  new HttpError(411, 'Content-Length is required: send the file in one request body (chunked uploads are refused).')
export const tooLarge = () => new HttpError(413, 'The file is larger than the 5 MB upload limit.')

/**
 * Runs before the body is read: refuses chunked bodies (411), declared sizes over the limit (413)
 * and anything that is not multipart/form-data (400).
 */
export async function checkUploadHeaders(request: FastifyRequest, _reply: FastifyReply) {
  const declared = request.headers['content-length']
  if (declared === undefined || request.headers['transfer-encoding'] !== undefined) throw lengthRequired()
  if (!/^\d+$/.test(declared)) throw badRequest('Content-Length must be a byte count.')
  if (Number(declared) > MAX_REQUEST_BYTES) throw tooLarge()
  const type = request.headers['content-type'] ?? ''
  if (!/^multipart\/form-data\s*;/i.test(type) || !/boundary=/i.test(type)) {
    throw badRequest(`Send multipart/form-data with one file field named '${FIELD_NAME}'.`)
  }
}

export interface UploadedFile {
  bytes: Buffer
  /** The client's file name (untrusted; sanitized later). */
  filename: string
}

const LIMIT_CODES = new Set(['FST_PARTS_LIMIT', 'FST_FILES_LIMIT', 'FST_FIELDS_LIMIT'])

function describePart(part: { type: string; fieldname: string }) {
  return part.type === 'file' ? `file field '${part.fieldname}'` : `field '${part.fieldname}'`
}

/** Reads exactly one file part named `meme`, stopping at 5 MB; any other shape is a 400. */
export async function readMemeFile(request: FastifyRequest): Promise<UploadedFile> {
  let file: UploadedFile | undefined
  try {
    const parts = request.parts({
      // One part is expected; the small allowances let a second part be seen and named in the error.
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 2, fields: 1, parts: 3, fieldNameSize: 100, fieldSize: 1024, headerPairs: 20 },
    })
    for await (const part of parts) {
      if (part.fieldname !== FIELD_NAME) {
        throw badRequest(`Unexpected ${describePart(part)}: send only one file field named '${FIELD_NAME}'.`)
      }
      if (part.type !== 'file') throw badRequest(`The '${FIELD_NAME}' field must be a file.`)
      if (file) throw badRequest(`Send the '${FIELD_NAME}' file field only once.`)
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of part.file) {
        size += chunk.length
        chunks.push(chunk)
      }
      // busboy stops at fileSize and marks the stream truncated: the rest is never buffered.
      if (part.file.truncated || size > MAX_UPLOAD_BYTES) throw tooLarge()
      file = { bytes: Buffer.concat(chunks, size), filename: part.filename ?? '' }
    }
  } catch (error) {
    if (error instanceof HttpError) throw error
    const code = (error as { code?: string }).code
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge()
    if (code && LIMIT_CODES.has(code)) throw badRequest(`Send only one file field named '${FIELD_NAME}'.`)
    throw badRequest(`Malformed multipart body: ${(error as Error).message}.`)
  }
  if (!file) throw badRequest(`The file field '${FIELD_NAME}' is missing.`)
  if (file.bytes.length === 0) throw badRequest('The uploaded file is empty.')
  return file
}

const CONTROL_AND_BIDI = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu

/** The client's file name made safe to store and show: no path, control or bidi characters, max 255. */
export function sanitizeFileName(name: string, fallback: string): string {
  const base = name.normalize('NFC').split(/[\\/]/).pop() ?? ''
  const clean = base.replace(CONTROL_AND_BIDI, '').replace(/\s+/g, ' ').trim()
  // At most 255 UTF-16 units, never splitting a surrogate pair.
  let limited = ''
  for (const char of clean) {
    if (limited.length + char.length > 255) break
    limited += char
  }
  return limited === '' || limited === '.' || limited === '..' ? fallback : limited
}
