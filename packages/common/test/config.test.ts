import { Type } from '@sinclair/typebox'
import { test } from 'tap'
import { baseConfigProperties, ConfigError, loadConfig, parseTrustProxy } from '../src/config.ts'

const schema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ default: 8080, minimum: 0, maximum: 65535 }),
  LIMIT: Type.Integer({ minimum: 1 }),
  SECRET: Type.String({ minLength: 32 }),
  MODE: Type.Union([Type.Literal('a'), Type.Literal('b')], { default: 'a' }),
})

test('defaults fill in and strings convert to the declared types', async (t) => {
  const config = loadConfig(schema, { LIMIT: '5', SECRET: 'x'.repeat(32) })
  t.equal(config.PORT, 8080)
  t.equal(config.LIMIT, 5)
  t.equal(config.MODE, 'a')
  t.equal(config.HOST, '127.0.0.1')
  t.equal(config.DATA_DIR, 'data')
  t.equal(config.DATABASE_URL, undefined)
})

test('every bad variable is named once with what it expects, never its value', async (t) => {
  const error = t.throws(() =>
    loadConfig(schema, { PORT: 'eighty', SECRET: 'hunter2-short', MODE: 'c', DATABASE_URL: 'mysql://x' }),
  ) as ConfigError
  t.ok(error instanceof ConfigError)
  t.equal(error.problems.length, 5)
  t.match(error.message, /PORT is invalid: expected integer >= 0 <= 65535/)
  t.match(error.message, /LIMIT is required: expected integer >= 1/)
  t.match(error.message, /SECRET is invalid: expected string at least 32 characters/)
  t.match(error.message, /MODE is invalid: expected one of a, b/)
  t.match(error.message, /DATABASE_URL is invalid: expected a postgres:\/\/ URL/)
  t.notMatch(error.message, /hunter2/, 'the secret value is not printed')
})

test('empty strings count as unset', async (t) => {
  const config = loadConfig(schema, { LIMIT: '1', SECRET: 's'.repeat(40), PORT: '' })
  t.equal(config.PORT, 8080)
})

test('TRUST_PROXY forms', async (t) => {
  t.equal(parseTrustProxy('false'), false)
  t.equal(parseTrustProxy('true'), true)
  t.equal(parseTrustProxy('2'), 2)
  t.equal(parseTrustProxy('10.0.0.1,10.0.0.2'), '10.0.0.1,10.0.0.2')
})

test('a fraction, exponent or stray text for an integer is refused, never rounded', async (t) => {
  for (const raw of ['1.5', '2.0', '1e3', '12abc', ' 7', '0x10']) {
    const error = t.throws(() => loadConfig(schema, { LIMIT: raw, SECRET: 'x'.repeat(32) }), raw) as ConfigError
    t.match(error.message, /LIMIT is invalid: expected integer >= 1/, raw)
  }
  t.equal(loadConfig(schema, { LIMIT: '12', SECRET: 'x'.repeat(32) }).LIMIT, 12)
  t.equal(loadConfig(schema, { LIMIT: '+3', SECRET: 'x'.repeat(32) }).LIMIT, 3)
})
