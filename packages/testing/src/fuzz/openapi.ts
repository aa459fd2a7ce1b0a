/** The parts of an OpenAPI 3.x document the fuzzer reads (loosely typed: documents come from JSON). */
export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  enum?: unknown[]
  const?: unknown
  pattern?: string
  format?: string
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  nullable?: boolean
  default?: unknown
  $ref?: string
}

export interface Parameter {
  name: string
  in: 'query' | 'path' | 'header' | 'cookie'
  required?: boolean
  schema?: JsonSchema
}

export interface Operation {
  method: string
  path: string
  key: string
  parameters: Parameter[]
  /** Content types of the request body, with their schemas. */
  body?: Record<string, JsonSchema | undefined>
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> } | undefined>
  secured: boolean
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Record<string, unknown>>>
  components?: { schemas?: Record<string, JsonSchema> }
  security?: unknown[]
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options'])

/** Follows a local $ref ("#/components/schemas/Name"); other schemas come back unchanged. */
export function deref(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  let current = schema
  for (let depth = 0; current?.$ref && depth < 20; depth++) {
    const name = current.$ref.replace(/^#\/components\/schemas\//, '')
    current = doc.components?.schemas?.[name]
  }
  return current
}

/** Every operation of the document, in document order. */
export function listOperations(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, raw] of Object.entries(item)) {
      if (!METHODS.has(method)) continue
      const op = raw as {
        parameters?: Parameter[]
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
        responses?: Operation['responses']
        security?: unknown[]
      }
      const body = op.requestBody?.content
        ? Object.fromEntries(Object.entries(op.requestBody.content).map(([type, media]) => [type, deref(doc, media.schema)]))
        : undefined
      const security = op.security ?? doc.security ?? []
      operations.push({
        method: method.toUpperCase(),
        path,
        key: `${method.toUpperCase()} ${path}`,
        parameters: op.parameters ?? [],
        body,
        responses: op.responses ?? {},
        secured: security.length > 0,
      })
    }
  }
  return operations
}
