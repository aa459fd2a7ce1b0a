import { test } from 'tap'
import { build } from '../helper.ts'

test('GET /openapi.json is the OpenAPI 3.1 document of the dashboard, built from the route schemas', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/openapi.json' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.equal(doc.openapi, '3.1.0')
  for (const [method, path] of [
    ['get', '/api/health'],
    ['post', '/api/auth/login'],
    ['post', '/api/auth/logout'],
    ['get', '/api/auth/me'],
    ['get', '/api/settings'],
    ['put', '/api/settings'],
    ['get', '/api/dashboard/summary'],
    ['get', '/api/dashboard/history'],
    ['get', '/api/dashboard/history/{window}'],
    ['post', '/api/rpc/call'],
    ['get', '/api/rpc/commands'],
    ['get', '/api/rpc/help/{method_name}'],
    ['get', '/metrics'],
  ]) {
    const operation = doc.paths[path]?.[method]
    t.ok(operation, `${method.toUpperCase()} ${path}`)
    t.ok(operation?.summary && operation?.tags?.length, `${path} has a summary and tags`)
  }
  t.same(doc.paths['/api/settings'].get.security, [{ sessionCookie: [] }])
  t.same(doc.paths['/api/auth/login'].post.security, [], 'login needs no session (security: [])')
  const put = doc.paths['/api/settings'].put.requestBody.content['application/json'].schema
  t.same(put.properties.ssh_port, { type: 'integer', minimum: 1, maximum: 65535, description: 'SSH port (default 22)' })
  const windows = doc.paths['/api/dashboard/history/{window}'].get.parameters.find((p: { name: string }) => p.name === 'window')
  t.same(
    windows.schema.anyOf.map((s: { const?: string; enum?: string[] }) => s.const ?? s.enum?.[0]),
    ['5m', '30m', '2h', '6h', 'all'],
  )
  t.ok(doc.paths['/api/dashboard/summary'].get.responses['502'], 'documented failure statuses')
})
