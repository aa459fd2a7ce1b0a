import type { JsonSchema, OpenApiDocument } from './openapi.ts'
import { deref } from './openapi.ts'

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

function matchesType(value: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(value)
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value)
  return typeOf(value) === type
}

/**
 * Checks a decoded JSON value against the JSON Schema subset @fastify/swagger emits from TypeBox
 * (types, properties, required, items, enum/const, patterns, ranges, anyOf/oneOf/allOf, local $ref).
 * Returns the first mismatch as "path: reason", or undefined when the value conforms.
 */
export function validateSchema(doc: OpenApiDocument, raw: JsonSchema | undefined, value: unknown, at = '$'): string | undefined {
  const schema = deref(doc, raw)
  if (!schema) return undefined
  if (schema.nullable && value === null) return undefined
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
  if (types.length && !types.some((t) => matchesType(value, t))) return `${at}: expected ${types.join('|')}, got ${typeOf(value)}`
  if (schema.const !== undefined && value !== schema.const) return `${at}: expected const ${JSON.stringify(schema.const)}`
  if (schema.enum && !schema.enum.includes(value)) return `${at}: not in enum`
  for (const sub of schema.allOf ?? []) {
    const problem = validateSchema(doc, sub, value, at)
    if (problem) return problem
  }
  const variants = schema.anyOf ?? schema.oneOf
  if (variants && !variants.some((sub) => validateSchema(doc, sub, value, at) === undefined)) return `${at}: matches no variant`
  if (typeof value === 'string') {
    const length = [...value].length
    if (schema.minLength !== undefined && length < schema.minLength) return `${at}: shorter than ${schema.minLength}`
    if (schema.maxLength !== undefined && length > schema.maxLength) return `${at}: longer than ${schema.maxLength}`
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) return `${at}: does not match ${schema.pattern}`
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `${at}: below ${schema.minimum}`
    if (schema.maximum !== undefined && value > schema.maximum) return `${at}: above ${schema.maximum}`
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return `${at}: fewer than ${schema.minItems} items`
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${at}: more than ${schema.maxItems} items`
    for (const [index, item] of value.entries()) {
      const problem = validateSchema(doc, schema.items, item, `${at}[${index}]`)
      if (problem) return problem
    }
  }
  if (typeOf(value) === 'object') {
    const record = value as Record<string, unknown>
    for (const name of schema.required ?? []) {
      if (!Object.hasOwn(record, name)) return `${at}.${name}: required`
    }
    for (const [name, item] of Object.entries(record)) {
      const prop = schema.properties?.[name]
      if (prop) {
        const problem = validateSchema(doc, prop, item, `${at}.${name}`)
        if (problem) return problem
      } else if (schema.additionalProperties === false) {
        return `${at}.${name}: not allowed`
      } else if (typeof schema.additionalProperties === 'object') {
        const problem = validateSchema(doc, schema.additionalProperties, item, `${at}.${name}`)
        if (problem) return problem
      }
    }
  }
  return undefined
}
