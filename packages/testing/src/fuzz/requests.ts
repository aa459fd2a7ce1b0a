import type { JsonSchema, OpenApiDocument, Operation } from './openapi.ts'
import { listOperations } from './openapi.ts'
import type { Random } from './random.ts'
import { fuzzValue, HOSTILE_STRINGS, hostileValue, validValue } from './values.ts'

export type FuzzKind = 'params' | 'json-body' | 'malformed-body' | 'content-type' | 'oversized-body' | 'headers' | 'method'

export interface FuzzRequest {
  operation: Operation
  kind: FuzzKind
  method: string
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
  /** Whether the caller's credentials were attached. */
  authenticated: boolean
}

export interface GenerateOptions {
  /** Requests to generate; spread round-robin over the operations so every route gets its share. */
  count: number
  /** Headers that authenticate (a session cookie, a bearer token); attached to most requests of secured routes. */
  auth?: Record<string, string>
  /** Bytes in an oversized body (default 2 MiB, above Fastify's 1 MiB default limit). */
  oversizedBytes?: number
  /** Operations to leave out (key "METHOD /path"), e.g. uploads that have their own suite. */
  skip?: string[]
}

/** encodeURIComponent that survives lone surrogates (it throws on them) by percent-encoding their UTF-8-like bytes. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value)
  } catch {
    return [...value].map((ch) => (/[\ud800-\udfff]/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch))).join('')
  }
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'))

function buildUrl(op: Operation, doc: OpenApiDocument, random: Random): string {
  let path = op.path
  for (const param of op.parameters.filter((p) => p.in === 'path')) {
    const value = random.chance(0.1) ? '' : asText(fuzzValue(doc, param.schema, random))
    path = path.replace(`{${param.name}}`, random.chance(0.1) ? value.replaceAll(/[\s#?]/g, '') : encode(value))
  }
  const pairs: string[] = []
  for (const param of op.parameters.filter((p) => p.in === 'query')) {
    if (!param.required && random.chance(0.3)) continue
    const schema = param.schema as JsonSchema | undefined
    const repeats = schema?.type === 'array' || random.chance(0.15) ? random.pick([1, 2, 5, 30]) : 1
    for (let i = 0; i < repeats; i++) {
      const item = schema?.type === 'array' ? fuzzValue(doc, schema.items, random) : fuzzValue(doc, schema, random)
      pairs.push(`${encode(param.name)}=${encode(asText(item))}`)
    }
  }
  // Prototype-pollution and parser-confusing keys, and raw (badly encoded) text.
  if (random.chance(0.2)) pairs.push(random.pick(['__proto__[polluted]=1', 'constructor[prototype][x]=1', '__proto__=1']))
  if (random.chance(0.1)) pairs.push(random.pick(['%', '%zz=%E0%A4%A', 'a=%00', '=', '&&&', 'x'.repeat(10_000)]))
  return pairs.length ? `${path}?${pairs.join('&')}` : path
}

/** A JSON body for the schema with hostile fields mixed in, as text so `__proto__` keys survive. */
function jsonBody(op: Operation, doc: OpenApiDocument, random: Random): string {
  const schema = op.body?.['application/json']
  const base = (validValue(doc, schema, random) ?? {}) as Record<string, unknown>
  const record: Record<string, unknown> = typeof base === 'object' && !Array.isArray(base) ? { ...base } : {}
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if (random.chance(0.4)) record[name] = hostileValue(doc, prop, random)
    else if (random.chance(0.1)) delete record[name]
  }
  let text = JSON.stringify(record)
  if (random.chance(0.25)) {
    const extra = random.pick(['"__proto__":{"isAdmin":true}', '"constructor":{"prototype":{"x":1}}', '"unexpected":1'])
    text = text === '{}' ? `{${extra}}` : `${text.slice(0, -1)},${extra}}`
  }
  if (random.chance(0.1)) text = JSON.stringify(random.pick([[], 'text', 42, null, [record]]))
  return text
}

const MALFORMED = [
  '{',
  '{"a":',
  "{'a':1}",
  '{"a":1,}',
  '[1,2',
  'nul',
  '\u0000',
  '{"a":"\\ud800"}',
  '{"a":1}{"b":2}',
  '\ufeff{}',
  '',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"a":${'{"a":'.repeat(3000)}1${'}'.repeat(3001)}`,
]

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'application/json; charset=utf-16',
  'application/json; charset=nope',
  'application/octet-stream',
  '*/*',
  ';;;',
  'application/json\u0000',
]

function withAuth(op: Operation, random: Random, options: GenerateOptions) {
  const authenticated = Boolean(options.auth) && op.secured && random.chance(0.75)
  return { authenticated, headers: authenticated ? { ...options.auth } : {} }
}

function one(op: Operation, doc: OpenApiDocument, random: Random, options: GenerateOptions): FuzzRequest {
  const { authenticated, headers } = withAuth(op, random, options)
  const base = { operation: op, method: op.method, authenticated }
  const url = buildUrl(op, doc, random)
  const hasJson = Boolean(op.body?.['application/json'])
  const roll = random.next()
  if (hasJson && roll < 0.45) {
    return {
      ...base,
      kind: 'json-body',
      url,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: jsonBody(op, doc, random),
    }
  }
  if (roll < 0.6 && op.method !== 'GET') {
    const payload = random.pick(MALFORMED)
    return { ...base, kind: 'malformed-body', url, headers: { ...headers, 'content-type': 'application/json' }, payload }
  }
  if (roll < 0.68 && op.method !== 'GET') {
    const payload = random.chance(0.5) ? 'a=1&__proto__[x]=1' : random.bytes(64)
    return { ...base, kind: 'content-type', url, headers: { ...headers, 'content-type': random.pick(CONTENT_TYPES) }, payload }
  }
  if (roll < 0.71 && op.method !== 'GET') {
    const size = options.oversizedBytes ?? 2 * 1024 * 1024
    const payload = `{"x":"${'a'.repeat(size)}"}`
    return { ...base, kind: 'oversized-body', url, headers: { ...headers, 'content-type': 'application/json' }, payload }
  }
  if (roll < 0.8) {
    const hostile: Record<string, string> = {
      accept: random.pick(['*/*', 'text/html', 'application/xml', 'image/*;q=0', 'x'.repeat(4096)]),
      'accept-encoding': random.pick(['gzip', 'br;q=2, *;q=0', 'identity;q=0', 'zz, ,, x', '*']),
      'if-none-match': random.pick(['"abc"', '*', 'W/"x", "y"', '"'.repeat(100)]),
      'x-forwarded-for': random.pick(['1.2.3.4', '::1', 'garbage', '999.999.999.999, 10.0.0.1']),
      origin: random.pick(['null', 'http://evil.example', 'http://localhost:80']),
      cookie: random.pick(['dashboard_session=forged.sig', 'a=b; a=c', '=;;=', `x=${'y'.repeat(8000)}`]),
      authorization: random.pick(['Bearer ', 'Bearer x', 'Basic Og==', `Bearer ${'z'.repeat(8000)}`]),
      'x-huge': 'h'.repeat(random.pick([100, 16_000, 64_000])),
    }
    const picked = Object.fromEntries(Object.entries(hostile).filter(() => random.chance(0.4)))
    // Hostile headers never replace the caller's credentials: a forged cookie would only test the 401 path.
    return { ...base, kind: 'headers', url, headers: { ...picked, ...headers } }
  }
  if (roll < 0.85) {
    const method = random.pick(['PATCH', 'DELETE', 'PUT', 'POST', 'OPTIONS', 'HEAD'].filter((m) => m !== op.method))
    return { ...base, kind: 'method', method, url, headers }
  }
  return { ...base, kind: 'params', url, headers }
}

/**
 * Seeded requests over every operation of the document: same doc + same seed = same requests.
 * Lazy on purpose: a long run holds thousands of requests, some with 2 MiB bodies.
 */
export function* generateRequests(doc: OpenApiDocument, random: Random, options: GenerateOptions): Generator<FuzzRequest> {
  const operations = listOperations(doc).filter((op) => !options.skip?.includes(op.key))
  if (!operations.length) return
  for (let i = 0; i < options.count; i++) yield one(operations[i % operations.length] as Operation, doc, random, options)
}

export { HOSTILE_STRINGS }
