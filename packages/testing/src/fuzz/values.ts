import type { JsonSchema, OpenApiDocument } from './openapi.ts'
import { deref } from './openapi.ts'
import type { Random } from './random.ts'

/** Strings that have broken parsers, loggers, SQL and templates before. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'prototype',
  "' OR '1'='1' --",
  '"; DROP TABLE memes; --',
  '../../../../etc/passwd',
  '..%2f..%2f..%2fetc%2fpasswd',
  '%00',
  '\u0000',
  'a\u0000b',
  '\r\nSet-Cookie: x=1',
  '\u0007\u001b[31m\u007f',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  `{{7*7}}\${7*7}`,
  '😀🎉👍🏽',
  'Ünïcödé ñ ß Ω 漢字 العربية',
  '\u202eevil\u202c',
  'e\u0301\u0301\u0301\u0301',
  '\ud800',
  '\udfff\ud800',
  '\ufeff\uffff',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '9007199254740993',
  'true',
  'null',
  '[]',
  '{}',
  '%',
  '%zz',
  '*',
  '$where',
  '\\',
]

/** Numbers at and beyond every usual boundary. */
export const HOSTILE_NUMBERS: readonly number[] = [
  0,
  -1,
  1,
  -0,
  0.5,
  -2147483649,
  2147483648,
  4294967296,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  1e21,
  1e308,
  -1e308,
  Number.MIN_VALUE,
]

/** Values of the wrong JSON type, including prototype-pollution shaped objects. */
export function wrongTypeValues(): unknown[] {
  return [
    null,
    true,
    false,
    [],
    [1, 'a', null],
    {},
    JSON.parse('{"__proto__":{"polluted":true}}'),
    JSON.parse('{"constructor":{"prototype":{"polluted":true}}}'),
    { $gt: '' },
  ]
}

const types = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [])

/** A value the schema accepts, or a near-miss at its boundary. */
export function validValue(doc: OpenApiDocument, raw: JsonSchema | undefined, random: Random, depth = 0): unknown {
  const schema = deref(doc, raw) ?? {}
  if (schema.const !== undefined) return schema.const
  if (schema.enum?.length) return random.pick(schema.enum)
  const variants = schema.anyOf ?? schema.oneOf
  if (variants?.length) return validValue(doc, random.pick(variants), random, depth + 1)
  if (schema.allOf?.length) return validValue(doc, schema.allOf[0], random, depth + 1)
  const type = random.pick(types(schema).length ? types(schema) : ['string'])
  switch (type) {
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0)
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : min + 1000)
      const value = random.pick([min, max, random.int(Math.ceil(min), Math.floor(Math.min(max, min + 1e6)))])
      return type === 'integer' ? Math.round(value) : value
    }
    case 'boolean':
      return random.chance(0.5)
    case 'null':
      return null
    case 'array': {
      const count = random.int(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3))
      return Array.from({ length: count }, () => (depth > 4 ? null : validValue(doc, schema.items, random, depth + 1)))
    }
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(name) || random.chance(0.6)) {
          out[name] = depth > 4 ? null : validValue(doc, prop, random, depth + 1)
        }
      }
      return out
    }
    default: {
      if (schema.pattern === '^[a-f0-9]{64}$') return random.string(64, '0123456789abcdef')
      if (schema.format === 'date-time') return new Date(random.int(0, 2e12)).toISOString()
      if (schema.format === 'uri' || /url/i.test(String(schema.pattern))) return 'http://127.0.0.1:9/'
      const min = schema.minLength ?? 0
      const max = Math.min(schema.maxLength ?? 24, 64)
      return random.string(random.int(min, Math.max(min, max)))
    }
  }
}

/** A value meant to be refused (or survived): wrong type, out of range, overlong, hostile text. */
export function hostileValue(doc: OpenApiDocument, raw: JsonSchema | undefined, random: Random): unknown {
  const schema = deref(doc, raw) ?? {}
  const roll = random.next()
  if (roll < 0.15) return random.pick(wrongTypeValues())
  if (roll < 0.3) return random.pick(HOSTILE_NUMBERS)
  if (roll < 0.45 && schema.maxLength !== undefined) {
    return random.string(schema.maxLength + random.pick([1, 2, 1000]), 'aZ9_-é')
  }
  if (roll < 0.55) return random.string(random.pick([1000, 10_000, 100_000]), 'ab ')
  if (roll < 0.65 && schema.minimum !== undefined) return schema.minimum - random.pick([1, 0.5, 1e9])
  if (roll < 0.72 && schema.maximum !== undefined) return schema.maximum + random.pick([1, 0.5, 1e9])
  if (roll < 0.8) return random.string(random.int(1, 40), '\u0000\u0001\u001f\u007f\u200b\u202e\ud800\ufffe"\'\\<>&%/?#')
  return random.pick(HOSTILE_STRINGS)
}

/** Mostly hostile, sometimes valid: valid values let the fuzz reach the code behind the validation. */
export function fuzzValue(doc: OpenApiDocument, schema: JsonSchema | undefined, random: Random): unknown {
  return random.chance(0.35) ? validValue(doc, schema, random) : hostileValue(doc, schema, random)
}
