import {
  describeProblems,
  type FuzzRequest,
  formatStatuses,
  fuzzShare,
  heapAfterGc,
  listOperations,
  type Operation,
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
import { type HostileUpload, hostileUploads } from './upload-inputs.ts'

const uploadCount = fuzzShare(38, CATALOG_SHARES.uploads)

/** The uploads as fuzz requests, one at a time; `current` names the one in flight. */
function* uploadRequests(operation: Operation, uploads: Iterable<HostileUpload>, current: { name: string }) {
  for (const upload of uploads) {
    current.name = upload.name
    const request: FuzzRequest = {
      operation,
      kind: 'params',
      method: 'POST',
      url: '/api/memes',
      headers: { 'content-type': upload.contentType },
      payload: upload.payload,
      authenticated: false,
    }
    yield request
  }
}

test(`POST /api/memes answers hostile files and envelopes with documented statuses only (seed ${seed})`, async (t) => {
  const app = await buildFuzzApp(t)
  const doc = await fetchDoc(app, '/openapi.json')
  const operation = listOperations(doc).find((op) => op.key === 'POST /api/memes')
  if (!operation) throw new Error('POST /api/memes is not in the document')
  const uploads = await hostileUploads(random, uploadCount)
  const baseline = heapAfterGc()
  const send = injectSend(app)
  // Statuses per input; the numbered bit flips are tallied together so a long run keeps a few lines only.
  const outcomes = new Map<string, Record<number, number>>()
  const current = { name: '' }
  const report = await runFuzz(
    doc,
    uploadRequests(operation, uploads.cases, current),
    async (request) => {
      const response = await send(request)
      const key = current.name.replace(/ #\d+$/, '')
      const tally = outcomes.get(key) ?? {}
      tally[response.statusCode] = (tally[response.statusCode] ?? 0) + 1
      outcomes.set(key, tally)
      return response
    },
    { errorKey: 'error', generic: CATALOG_GENERIC, secrets: [ADMIN_TOKEN], known: catalogKnown },
    { label: `catalog uploads (seed ${seed})`, every: progressEvery(uploads.count) },
  )
  t.comment([...outcomes].map(([name, statuses]) => `${name}: ${formatStatuses(statuses)}`).join('\n'))
  t.comment(summarizeReport('uploads', report))
  t.same(report.problems, [], `upload problems:\n${describeProblems(report)}`)
  t.equal(report.sent, uploads.count, `all ${uploads.count} uploads were sent`)
  for (const status of Object.keys(report.statuses).map(Number)) {
    t.ok([201, 202, 400, 411, 413, 415, 422].includes(status), `status ${status} is one POST /api/memes documents`)
  }
  const expectRefused = ['zero-byte file', 'truncated PNG', 'pixel bomb: IHDR 30000x30000', 'pixel bomb: IHDR 6001x10']
  for (const name of expectRefused) {
    const statuses = Object.keys(outcomes.get(name) ?? {}).map(Number)
    t.ok(statuses.length > 0 && statuses.every((s) => s >= 400 && s < 500), `${name} is refused: ${statuses.join(', ')}`)
  }

  // Every accepted upload is really stored with its media; none half-written.
  const accepted = (await app.db.query<{ id: string; status: string }>('SELECT id, status FROM memes')).rows
  const media = (await app.db.query<{ meme_id: string }>('SELECT meme_id FROM meme_media')).rows
  t.same(media.map((m) => m.meme_id).sort(), accepted.map((m) => m.id).sort(), 'every stored meme has its media and no orphans')
  const approved = accepted.filter((m) => m.status === 'approved')
  const notServed: string[] = []
  for (const meme of approved) {
    const res = await app.inject(`/media/${meme.id}`)
    if (res.statusCode !== 200 || res.headers['content-type'] !== 'image/webp') {
      notServed.push(`${meme.id.slice(0, 8)}: ${res.statusCode} ${res.headers['content-type']}`)
    }
  }
  t.ok(approved.length > 0, `${approved.length} of ${accepted.length} stored memes are approved`)
  t.same(notServed, [], 'every approved meme is served as image/webp')
  t.equal((await app.inject('/api/health')).statusCode, 200, 'still healthy')
  const grown = heapAfterGc() - baseline
  t.ok(grown < 48 * 2 ** 20, `heap grew by ${(grown / 2 ** 20).toFixed(1)} MiB (< 48 MiB)`)
})
