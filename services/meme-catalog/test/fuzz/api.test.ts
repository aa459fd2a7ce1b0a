import {
  describeProblems,
  fuzzShare,
  generateRequests,
  heapAfterGc,
  progressEvery,
  runFuzz,
  summarizeReport,
} from '@app/testing/fuzz'
import { test } from 'tap'
import {
  ADMIN_TOKEN,
  buildFuzzApp,
  CATALOG_GENERIC,
  CATALOG_SHARES,
  catalogKnown,
  fetchDoc,
  injectSend,
  random,
  seed,
} from './support.ts'

const publicCount = fuzzShare(240, CATALOG_SHARES.public)
const adminCount = fuzzShare(160, CATALOG_SHARES.admin)

test(`every public and admin route survives seeded hostile requests (seed ${seed})`, async (t) => {
  const app = await buildFuzzApp(t)
  const publicDoc = await fetchDoc(app, '/openapi.json')
  const adminAuth = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const adminDoc = await fetchDoc(app, '/admin/openapi.json', adminAuth)
  const send = injectSend(app)
  const options = { errorKey: 'error', generic: CATALOG_GENERIC, secrets: [ADMIN_TOKEN], known: catalogKnown }

  // Warm-up round first: the heap baseline is taken once routes, schemas and caches exist.
  await runFuzz(publicDoc, generateRequests(publicDoc, random, { count: 40 }), send, options)
  const baseline = heapAfterGc()

  const publicReport = await runFuzz(publicDoc, generateRequests(publicDoc, random, { count: publicCount }), send, options, {
    label: `catalog public (seed ${seed})`,
    every: progressEvery(publicCount),
  })
  const adminReport = await runFuzz(
    adminDoc,
    generateRequests(adminDoc, random, { count: adminCount, auth: adminAuth }),
    send,
    options,
    { label: `catalog admin (seed ${seed})`, every: progressEvery(adminCount) },
  )
  t.comment(summarizeReport('public', publicReport))
  t.comment(summarizeReport('admin', adminReport))

  t.same(publicReport.problems, [], `public API problems:\n${describeProblems(publicReport)}`)
  t.same(adminReport.problems, [], `admin API problems:\n${describeProblems(adminReport)}`)
  t.ok(publicReport.sent >= publicCount && adminReport.sent >= adminCount, 'the whole budget was sent')
  t.ok(adminReport.anonymous > 0 && adminReport.authenticated > 0, 'admin routes were fuzzed with and without the token')

  // The service still answers normally after the storm.
  const health = await app.inject('/api/health')
  t.equal(health.statusCode, 200, 'still healthy')
  const list = await app.inject('/api/memes')
  t.equal(list.statusCode, 200, 'still lists memes')

  const after = heapAfterGc()
  const grown = after - baseline
  t.comment(`heap after GC: baseline ${(baseline / 2 ** 20).toFixed(1)} MiB, after ${(after / 2 ** 20).toFixed(1)} MiB`)
  // Loose on purpose: JIT and schema caches settle; a leak per request would show as tens of MiB.
  t.ok(grown < 32 * 2 ** 20, `heap grew by ${(grown / 2 ** 20).toFixed(1)} MiB (< 32 MiB)`)
})
