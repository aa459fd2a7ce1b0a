import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import SwaggerParser from '@apidevtools/swagger-parser'
import { createClient as heyApi } from '@hey-api/openapi-ts'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'

const run = promisify(execFile)
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = (name: string) => path.join(packageRoot, 'node_modules', '.bin', name)

type Json = Record<string, any>
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** Every operation of a document as [method, path, operation]. */
export function operations(doc: Json): [string, string, Json][] {
  return Object.entries<Json>(doc.paths ?? {}).flatMap(([p, item]) =>
    Object.entries<Json>(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => [method, p, op] as [string, string, Json]),
  )
}

/**
 * What a generated client or a reader would miss: an operation without a camelCase operationId (unique),
 * a summary, tags, explicit security, or a response described only as "Default Response".
 */
export function operationProblems(doc: Json): string[] {
  const problems: string[] = []
  const ids = new Map<string, string>()
  const schemes = Object.keys(doc.components?.securitySchemes ?? {})
  for (const [method, p, op] of operations(doc)) {
    const name = `${method.toUpperCase()} ${p}`
    if (typeof op.operationId !== 'string' || !/^[a-z][a-zA-Z0-9]*$/.test(op.operationId)) {
      problems.push(`${name}: operationId ${op.operationId} is not camelCase`)
    } else if (ids.has(op.operationId)) {
      problems.push(`${name}: operationId ${op.operationId} is also used by ${ids.get(op.operationId)}`)
    } else ids.set(op.operationId, name)
    if (!op.summary) problems.push(`${name}: no summary`)
    if (!op.tags?.length) problems.push(`${name}: no tags`)
    if (!Array.isArray(op.security)) problems.push(`${name}: no security (public operations say security: [])`)
    for (const requirement of op.security ?? []) {
      for (const scheme of Object.keys(requirement)) {
        if (!schemes.includes(scheme)) problems.push(`${name}: security names unknown scheme ${scheme}`)
      }
    }
    for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
      if (!response.description || response.description === 'Default Response') {
        problems.push(`${name} ${status}: no response description`)
      }
    }
  }
  return problems
}

/** Headers that are HTTP framing or browser policy, the same on every answer: not documented per response. */
export const UNDOCUMENTED_HEADERS: readonly string[] = [
  // Framing and content negotiation (OpenAPI describes Content-Type through `content`).
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'date',
  'keep-alive',
  'transfer-encoding',
  'vary',
  // Browser hardening and CORS: policy for browsers, described once in each service README.
  'access-control-allow-credentials',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-max-age',
  'content-security-policy',
  'cross-origin-embedder-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'permissions-policy',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]

/** One live answer: the operation that answered, its status and the headers it carried. */
export interface LiveAnswer {
  operation: readonly [method: string, path: string]
  status: number
  headers: Record<string, unknown>
}

/** "GET /x 200 ETag" for every header a live answer carried that its documented response does not list. */
export function undocumentedHeaders(doc: Json, answers: readonly LiveAnswer[]): string[] {
  const found = new Set<string>()
  for (const { operation, status, headers } of answers) {
    const [method, p] = operation
    const response = doc.paths[p]?.[method.toLowerCase()]?.responses?.[String(status)]
    const name = `${method.toUpperCase()} ${p} ${status}`
    if (!response) {
      found.add(`${name}: status not documented`)
      continue
    }
    const documented = new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase()))
    for (const header of Object.keys(headers)) {
      const lower = header.toLowerCase()
      if (!documented.has(lower) && !UNDOCUMENTED_HEADERS.includes(lower)) found.add(`${name} ${header}`)
    }
  }
  return [...found]
}

/**
 * `redocly lint` with the recommended rules, offline: telemetry and the update check are off, and where
 * user namespaces exist it runs with no network at all, so a rule needing a download fails the lint.
 */
export async function redoclyLint(doc: unknown): Promise<{ errors: number; warnings: number; report: string; offline: boolean }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'redocly-'))
  try {
    const file = path.join(dir, 'openapi.json')
    await writeFile(file, JSON.stringify(doc))
    const args = ['lint', file, '--extends=recommended', '--format=json']
    const offline = await canRunOffline()
    const [command, argv] = offline ? ['unshare', ['-rn', bin('redocly'), ...args]] : [bin('redocly'), args]
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' }
    const result = await run(command, argv, { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 }).catch(
      (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
    )
    const report = JSON.parse(result.stdout || '{"totals":{"errors":-1,"warnings":-1},"problems":[]}')
    const text = report.problems
      .map((p: Json) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? ''}`)
      .join('\n')
    return { errors: report.totals.errors, warnings: report.totals.warnings, report: text || result.stderr, offline }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

let offlineSupport: Promise<boolean> | undefined
/** Can this machine run a process without a network (unprivileged user + network namespace)? */
export function canRunOffline(): Promise<boolean> {
  offlineSupport ??= run('unshare', ['-rn', 'true']).then(
    () => true,
    () => false,
  )
  return offlineSupport
}

/** swagger-parser's validation (structure and every $ref); throws with the reason when invalid. */
export async function swaggerParserValidate(doc: unknown): Promise<void> {
  // It dereferences in place: give it a copy.
  await SwaggerParser.validate(structuredClone(doc) as never)
}

/** Where clients generated for a test live: inside this package, so `openapi-fetch` resolves from them. */
export async function clientsFolder(name: string): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const root = path.join(packageRoot, '.generated')
  await mkdir(root, { recursive: true })
  const dir = await mkdtemp(path.join(root, `${name}-`))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/**
 * Generates both clients from a document into `dir`: `openapi-typescript.ts` (types for openapi-fetch) and
 * `hey-api/` (@hey-api/openapi-ts SDK functions, named by operationId, on its bundled fetch client).
 */
export async function generateClients(doc: Json, dir: string): Promise<void> {
  // format: binary is a Blob (an upload's file, an image answer), as openapi-typescript's docs recommend.
  const blob = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'))
  const types = astToString(
    await openapiTS(structuredClone(doc) as never, {
      transform: (schema) => ((schema as { format?: string }).format === 'binary' ? blob : undefined),
    }),
  )
  await writeFile(path.join(dir, 'openapi-typescript.ts'), types)
  const input = path.join(dir, 'openapi.json')
  await writeFile(input, JSON.stringify(doc))
  await heyApi({
    input,
    // Explicit .ts imports: a bare './client' (a folder) is left to the loader's guessing, which failed at times.
    output: { path: path.join(dir, 'hey-api'), module: { extension: '.ts' } },
    plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
    logs: { level: 'silent' },
  })
}

/** `tsc --strict` over the .ts files of `dir`; throws with the compiler's messages. */
export async function compileStrict(dir: string): Promise<void> {
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: [],
    },
    include: ['**/*.ts'],
  }
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig))
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  await run(process.execPath, [tsc, '-p', dir, '--strict'], { cwd: dir }).catch((error: { stdout?: string }) => {
    throw new Error(`tsc --strict failed:\n${error.stdout}`)
  })
}
