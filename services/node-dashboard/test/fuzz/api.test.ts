import { type NodeSimulator, startNodeSimulator } from '@app/node-simulator'
import {
  describeProblems,
  type FuzzReport,
  fuzzLong,
  fuzzShare,
  generateRequests,
  heapAfterGc,
  mergeReports,
  progressEvery,
  runFuzz,
  summarizeReport,
} from '@app/testing/fuzz'
import { test } from 'tap'
import { build, login, TEST_PASSWORD } from '../helper.ts'
import { DASHBOARD_GENERIC, DASHBOARD_SHARES, dashboardKnown, fetchDoc, injectSend, random, seed } from './support.ts'

const RPC_PASSWORD = 'fuzz-rpc-Secret-pass'
const loggedInCount = fuzzShare(240, DASHBOARD_SHARES.loggedIn)
const anonymousCount = fuzzShare(80, DASHBOARD_SHARES.anonymous)
// Batches of at most 1 000 (60 in the normal run): the settings the fuzz rewrites are put back between them.
const batches = Math.max(4, Math.ceil(loggedInCount / 1000))
const perBatch = Math.ceil(loggedInCount / batches)

test(`every dashboard route survives seeded hostile requests, logged in and not (seed ${seed})`, async (t) => {
  let sim: NodeSimulator = await startNodeSimulator({ password: RPC_PASSWORD, wallets: ['w1'] })
  t.teardown(() => sim.close())
  // Short timeouts: settings the fuzz writes may point RPC or SSH anywhere; answers must stay bounded.
  const app = await build(t, {
    env: {
      RPC_TIMEOUT_MS: '1500',
      SSH_TIMEOUT_MS: '1500',
      RESTART_START_WAIT_MS: '0',
      LOGIN_MAX_FAILURES: '1000000',
      RPC_METHOD_DENYLIST: 'stop',
    },
  })
  const doc = await fetchDoc(app)
  const cookie = await login(app)
  const auth = { cookie }
  const send = injectSend(app)
  const options = {
    errorKey: 'detail',
    generic: DASHBOARD_GENERIC,
    secrets: [TEST_PASSWORD, RPC_PASSWORD],
    known: dashboardKnown,
  }
  const pointAtSimulator = () =>
    app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: RPC_PASSWORD })

  await pointAtSimulator()
  await runFuzz(doc, generateRequests(doc, random, { count: 30, auth, skip: ['POST /api/auth/logout'] }), send, options)
  const baseline = heapAfterGc()

  const loggedIn: FuzzReport[] = []
  const started = performance.now()
  for (let batch = 0; batch < batches; batch++) {
    // A node a fuzzed stop action shut down is replaced, so the next batch reaches a live node again.
    if (sim.stoppedByRpc) sim = await startNodeSimulator({ password: RPC_PASSWORD, wallets: ['w1'] })
    // The simulator records every call it gets: a long run must not keep them.
    sim.requests.length = 0
    await pointAtSimulator()
    // The stop and restart actions really stop the simulated node: every fourth batch runs them.
    const skip = ['POST /api/auth/logout', ...(batch % 4 === 3 ? [] : ['POST /api/actions/stop', 'POST /api/actions/restart'])]
    const requests = generateRequests(doc, random, { count: perBatch, auth, skip })
    loggedIn.push(await runFuzz(doc, requests, send, options))
    if (fuzzLong() && (batch + 1) % 10 === 0) {
      const sent = loggedIn.reduce((n, r) => n + r.sent, 0)
      process.stderr.write(
        `dashboard logged in (seed ${seed}): ${sent} sent in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      )
    }
  }
  // Unauthenticated, logout included: every protected route must refuse.
  const anonymous = await runFuzz(doc, generateRequests(doc, random, { count: anonymousCount }), send, options, {
    label: `dashboard anonymous (seed ${seed})`,
    every: progressEvery(anonymousCount),
  })

  const loggedInReport = mergeReports(loggedIn)
  const total = mergeReports([loggedInReport, anonymous])
  t.comment(summarizeReport(`logged in (${batches} batches)`, loggedInReport))
  t.comment(summarizeReport('not logged in', anonymous))
  t.comment(summarizeReport('total', total))
  t.same(total.problems, [], `problems:\n${describeProblems(total)}`)
  t.ok(loggedInReport.sent >= loggedInCount && anonymous.sent >= anonymousCount, 'the whole budget was sent')
  t.ok(total.statuses[200] > 0 && total.statuses[401] > 0, 'the fuzz reached handlers and the auth guard')

  // Still serving: the session still works and the node path answers (502 if a fuzzed action stopped the node).
  await pointAtSimulator()
  const settings = await app.inject({ url: '/api/settings', headers: { cookie } })
  t.equal(settings.statusCode, 200, 'the session survived the fuzz')
  const summary = await app.inject({ url: '/api/dashboard/summary', headers: { cookie } })
  t.ok([200, 502].includes(summary.statusCode), `summary after the fuzz: ${summary.statusCode}`)
  if (summary.statusCode === 502) t.type(summary.json().detail, 'string', 'a bounded 502 with {"detail"}')
  // Regression of a fuzz finding: a lone surrogate in a wallet name made encodeURIComponent throw (500).
  const surrogate = await app.inject({
    method: 'POST',
    url: '/api/rpc/call',
    headers: { cookie, 'content-type': 'application/json' },
    payload: '{"method":"getbalance","wallet":"\\ud800"}',
  })
  t.equal(surrogate.statusCode, 422, surrogate.body)
  t.type(surrogate.json().detail, 'string')

  const grown = heapAfterGc() - baseline
  t.ok(grown < 32 * 2 ** 20, `heap grew by ${(grown / 2 ** 20).toFixed(1)} MiB (< 32 MiB)`)
})
