import { listOperations, type OpenApiDocument } from './openapi.ts'
import type { FuzzRequest } from './requests.ts'
import { validateSchema } from './validate.ts'

export interface FuzzResponse {
  statusCode: number
  headers: Record<string, unknown>
  body: string
}

export interface CheckOptions {
  /** Field of the error body: "error" (catalog) or "detail" (dashboard). */
  errorKey: string
  /** Statuses any route may answer with the error body (the service documents them globally). */
  generic: number[]
  /** Strings that must never appear in a response (tokens, passwords). */
  secrets?: string[]
  /** Known, reported deviations: return a label to count the answer instead of failing it. */
  known?: (request: FuzzRequest, response: FuzzResponse) => string | undefined
}

function parseJson(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) }
  } catch {
    return { ok: false }
  }
}

/**
 * What is wrong with one answer, or undefined: a 5xx the route does not document, a status neither the
 * route nor the generic list names, a JSON body that breaks the documented schema or the error shape,
 * a secured route answering 2xx without credentials, or a secret echoed back.
 */
export function checkResponse(
  doc: OpenApiDocument,
  request: FuzzRequest,
  response: FuzzResponse,
  options: CheckOptions,
): string | undefined {
  // A request sent with another method may land on a sibling operation of the same path: judge it by that one.
  const sentAs = request.method === 'HEAD' ? 'GET' : request.method
  const sibling =
    sentAs === request.operation.method
      ? undefined
      : listOperations(doc).find((op) => op.path === request.operation.path && op.method === sentAs)
  const operation = sibling ?? request.operation
  const status = response.statusCode
  // Fastify answers HEAD on every GET route the way the GET would, without a body.
  const sameOperation = request.method === operation.method || (request.method === 'HEAD' && operation.method === 'GET')
  const documented = sameOperation ? operation.responses[String(status)] : undefined
  for (const secret of options.secrets ?? []) {
    if (secret && response.body.includes(secret)) return `response ${status} contains a secret`
  }
  if (operation.secured && !request.authenticated && status < 300 && sameOperation) {
    return `secured route answered ${status} without credentials`
  }
  if (status >= 500 && !documented) return `undocumented ${status}: ${response.body.slice(0, 200)}`
  if (!documented && !options.generic.includes(status)) return `status ${status} is not documented for this route`
  const type = String(response.headers['content-type'] ?? '')
  if (request.method === 'HEAD' || status === 204 || status === 304) return undefined
  if (!type.includes('json')) {
    // Non-JSON answers are fine only where the route documents that media type.
    const media = documented?.content ? Object.keys(documented.content) : []
    if (status >= 400 || !media.some((m) => type.startsWith(m.split(';')[0] ?? m) || m === '*/*')) {
      return `status ${status} answered ${type || 'no content type'}`
    }
    return undefined
  }
  const parsed = parseJson(response.body)
  if (!parsed.ok) return `status ${status} body is not JSON`
  if (status >= 400) {
    const record = parsed.value as Record<string, unknown> | null
    if (typeof record?.[options.errorKey] !== 'string') return `error body lacks a string "${options.errorKey}"`
    // Undocumented (generic) errors must be exactly the error shape: no stray framework fields.
    const extra = Object.keys(record ?? {}).filter((key) => key !== options.errorKey)
    if (!documented && extra.length) return `error body has extra fields: ${extra.join(', ')}`
  }
  const schema = documented?.content?.['application/json']?.schema
  if (schema) {
    const problem = validateSchema(doc, schema, parsed.value)
    if (problem) return `body does not match the ${status} schema: ${problem}`
  }
  return undefined
}
