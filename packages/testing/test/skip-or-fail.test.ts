import { test } from 'tap'
import { chromiumMissing } from '../src/browser.ts'
import { expectRoutes } from '../src/routes.ts'

// A missing feature fails a test; only a missing system component skips it, with the reason shown.

const app = { hasRoute: ({ method, url }: { method: string; url: string }) => method === 'GET' && url === '/api/memes' }

/** Records the assertion expectRoutes makes instead of making it, so its outcome can be checked. */
function recorder() {
  const made: { found: unknown; wanted: unknown }[] = []
  return { made, same: (found: unknown, wanted: unknown) => made.push({ found, wanted }) }
}

test('expectRoutes passes and returns true when every route is registered', async (t) => {
  const check = recorder()
  t.equal(expectRoutes(check, app, [['GET', '/api/memes']]), true)
  t.same(check.made, [{ found: [], wanted: [] }], 'one assertion, on an empty list of missing routes')
})

test('expectRoutes fails, naming the missing routes, when one is not registered', async (t) => {
  const check = recorder()
  t.equal(
    expectRoutes(check, app, [
      ['GET', '/api/memes'],
      ['POST', '/api/memes'],
      ['DELETE', '/api/tags/:name'],
    ]),
    false,
  )
  t.same(check.made, [{ found: ['POST /api/memes', 'DELETE /api/tags/:name'], wanted: [] }], 'an assertion that fails')
  t.notSame(check.made[0].found, check.made[0].wanted)
})

test('chromiumMissing gives a reason to skip only when the browser binary is absent', async (t) => {
  t.equal(chromiumMissing(process.execPath), false, 'an existing executable: run the test')
  t.match(chromiumMissing('/nonexistent/chromium'), /^\/nonexistent\/chromium not installed/)
})
