import { type FuzzReport, generateRequests, heapAfterGc, runFuzz } from '@app/common/fuzz'
import { test } from 'tap'
import { build, login, TEST_PASSWORD } from '../helper.ts'
import { startNodeSimulator } from '../support/node-simulator.ts'
import { budget, DASHBOARD_GENERIC, dashboardKnown, fetchDoc, injectSend, random, seed } from './support.ts'

const RPC_PASSWORD = 'fuzz-rpc-Secret-pass'

const describe = (report: FuzzReport) =>
  report.problems
    .slice(0, 20)
    .map((p) => `${p.kind} ${p.request} -> ${p.status}: ${p.problem}`)
    .join('\n')

test(`every dashboard route survives seeded hostile requests, logged in and not (seed ${seed})`, async (t) => {
  const sim = await startNodeSimulator({ password: RPC_PASSWORD, wallets: ['w1'] })
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
  const pointAtSimulator = () => app.nodeSettings.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: RPC_PASSWORD })

  await pointAtSimulator()
  await runFuzz(doc, generateRequests(doc, random, { count: 30, auth, skip: ['POST /api/auth/logout'] }), send, options)
  const baseline = heapAfterGc()

  const reports: FuzzReport[] = []
  // Batches: the fuzz rewrites the settings, so the node simulator is put back between them.
  for (let batch = 0; batch < 4; batch++) {
    await pointAtSimulator()
    // The stop and restart actions really stop the simulated node: only the last batch runs them.
    const skip = ['POST /api/auth/logout', ...(batch < 3 ? ['POST /api/actions/stop', 'POST /api/actions/restart'] : [])]
    const requests = generateRequests(doc, random, { count: budget(60), auth, skip })
    reports.push(await runFuzz(doc, requests, send, options))
  }
  // Unauthenticated, logout included: every protected route must refuse.
  reports.push(await runFuzz(doc, generateRequests(doc, random, { count: budget(80) }), send, options))

  const problems = reports.flatMap((r) => r.problems)
  t.same(problems, [], `problems:\n${reports.map(describe).join('\n')}`)
  const statuses: Record<string, number> = {}
  for (const r of reports) for (const [s, n] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + n
  t.comment(`statuses ${JSON.stringify(statuses)}`)
  t.ok(statuses['200'] > 0 && statuses['401'] > 0, 'the fuzz reached handlers and the auth guard')

  const known: Record<string, number> = {}
  for (const r of reports) for (const [k, n] of Object.entries(r.known)) known[k] = (known[k] ?? 0) + n
  t.comment(`known deviations: ${JSON.stringify(known)}`)

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
