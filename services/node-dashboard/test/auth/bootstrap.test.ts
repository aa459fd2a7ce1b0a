import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { Writable } from 'node:stream'
import { loadConfig } from '@app/common'
import { createTestDatabase } from '@app/testing'
import { type Test, test } from 'tap'
import { buildApp } from '../../src/app.ts'
import { hashPassword } from '../../src/auth/password.ts'
import { configSchema } from '../../src/config.ts'

/** Starts the dashboard with the given env and collects its log lines. */
async function start(t: Test, env: Record<string, string>, database: { dataDir: string; url?: string }) {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const config = loadConfig(configSchema, {
    DATA_DIR: database.dataDir,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    LOG_LEVEL: 'info',
    ...env,
  })
  const fastify = buildApp(config, { log: { stream } })
  await fastify.ready()
  t.teardown(() => fastify.close())
  return { fastify, lines }
}

const loginAs = (fastify: Awaited<ReturnType<typeof start>>['fastify'], username: string, password: string) =>
  fastify.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } })

test('without a password setting, a strong one is generated, logged once, and only its hash stored', async (t) => {
  const database = await createTestDatabase()
  t.teardown(() => database.cleanup())
  const first = await start(t, {}, database)
  const logged = first.lines.filter((l) => l.includes('generated the dashboard password'))
  t.equal(logged.length, 1)
  const password = /password for \\?"admin\\?": (\S+) /.exec(logged[0])?.[1]
  t.ok(password && password.length >= 20, 'a long random password')
  t.equal((await loginAs(first.fastify, 'admin', password!)).statusCode, 200)
  const { rows } = await first.fastify.db.query<{ password_hash: string }>('SELECT password_hash FROM dashboard_credentials')
  t.match(rows[0].password_hash, /^\$scrypt\$ln=15,r=8,p=1\$/)
  t.notMatch(rows[0].password_hash, password!)
  await first.fastify.close()

  const second = await start(t, {}, database)
  t.notOk(
    second.lines.some((l) => l.includes('generated the dashboard password')),
    'not printed again',
  )
  t.equal((await loginAs(second.fastify, 'admin', password!)).statusCode, 200, 'the same password after a restart')
  // The session secret was generated once under DATA_DIR, readable by its owner only.
  const secretFile = path.join(database.dataDir, 'session-secret')
  const secret = (await readFile(secretFile, 'utf8')).trim()
  t.ok(secret.length >= 32)
  t.equal((await stat(secretFile)).mode & 0o777, 0o600)
  t.notOk(
    [...first.lines, ...second.lines].some((l) => l.includes(secret)),
    'the secret is never logged',
  )
})

test('DASHBOARD_PASSWORD_HASH and DASHBOARD_USERNAME are honoured; passwords never reach the log', async (t) => {
  const database = await createTestDatabase()
  t.teardown(() => database.cleanup())
  const hash = await hashPassword('hashed pass phrase')
  const { fastify, lines } = await start(t, { DASHBOARD_USERNAME: 'operator', DASHBOARD_PASSWORD_HASH: hash }, database)
  t.equal((await loginAs(fastify, 'operator', 'hashed pass phrase')).statusCode, 200)
  t.equal((await loginAs(fastify, 'admin', 'hashed pass phrase')).statusCode, 401)
  t.equal((await loginAs(fastify, 'operator', 'wrong')).statusCode, 401)
  t.notOk(lines.some((l) => l.includes('hashed pass phrase') || l.includes('generated the dashboard password')))
})

test('a malformed DASHBOARD_PASSWORD_HASH stops start-up', async (t) => {
  const database = await createTestDatabase()
  t.teardown(() => database.cleanup())
  await t.rejects(start(t, { DASHBOARD_PASSWORD_HASH: '$scrypt$nonsense' }, database), /DASHBOARD_PASSWORD_HASH/)
})
