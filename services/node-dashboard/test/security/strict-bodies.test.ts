import { startNodeSimulator } from '@app/node-simulator'
import t from 'tap'
import { build, login } from '../helper.ts'

// JSON bodies are validated as sent: no type is coerced, and nesting is bounded.
t.test('bodies are not coerced and deep nesting is a 422, before the node is called', async (t) => {
  const sim = await startNodeSimulator({ password: 'strict-bodies-Secret' })
  t.teardown(() => sim.close())
  const app = await build(t)
  const cookie = await login(app)
  await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: 'strict-bodies-Secret' })
  const send = (method: 'POST' | 'PUT', url: string, payload: string) =>
    app.inject({ method, url, headers: { cookie, 'content-type': 'application/json' }, payload })
  const calls = sim.requests.length

  const stringParams = await send('POST', '/api/rpc/call', '{"method":"getblockhash","params":"0"}')
  t.equal(stringParams.statusCode, 422, 'a string is not the params array')
  t.match(stringParams.json().detail, /params/)

  const deep = await send(
    'POST',
    '/api/rpc/call',
    `{"method":"getblockhash","params":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
  )
  t.equal(deep.statusCode, 422, 'a 10,000-deep params array')
  t.match(deep.json().detail, /deeper than \d+ levels/)
  t.equal(sim.requests.length, calls, 'the node was never called')

  const arrayHost = await send('PUT', '/api/settings', '{"ssh_host":["  h  "]}')
  t.equal(arrayHost.statusCode, 422, 'an array is not the ssh_host string')
  const numberPort = await send('PUT', '/api/settings', '{"ssh_port":"2200"}')
  t.equal(numberPort.statusCode, 422, 'a string is not the ssh_port integer')
  const settings = await app.inject({ url: '/api/settings', headers: { cookie } })
  t.not(settings.json().ssh_host, '  h  ', 'nothing was stored')
})
