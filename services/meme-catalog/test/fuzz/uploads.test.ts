import { type FuzzRequest, heapAfterGc, listOperations, runFuzz } from '@app/common/fuzz'
import { test } from 'tap'
import { budget, buildFuzzApp, CATALOG_GENERIC, catalogKnown, describe, fetchDoc, injectSend, random, seed } from './support.ts'
import { hostileUploads } from './upload-inputs.ts'

test(`POST /api/memes answers hostile files and envelopes with documented statuses only (seed ${seed})`, async (t) => {
  const app = await buildFuzzApp(t)
  const doc = await fetchDoc(app, '/openapi.json')
  const operation = listOperations(doc).find((op) => op.key === 'POST /api/memes')
  if (!operation) throw new Error('POST /api/memes is not in the document')
  const uploads = await hostileUploads(random, budget(6))
  const requests: FuzzRequest[] = uploads.map((u) => ({
    operation,
    kind: 'params',
    method: 'POST',
    url: '/api/memes',
    headers: { 'content-type': u.contentType },
    payload: u.payload,
    authenticated: false,
  }))
  const baseline = heapAfterGc()
  const send = injectSend(app)
  const outcomes: string[] = []
  const report = await runFuzz(
    doc,
    requests,
    async (request) => {
      const response = await send(request)
      outcomes.push(`${uploads[outcomes.length]?.name}: ${response.statusCode}`)
      return response
    },
    { errorKey: 'error', generic: CATALOG_GENERIC, known: catalogKnown },
  )
  t.comment(outcomes.join('\n'))
  t.same(report.problems, [], `upload problems:\n${describe(report)}`)
  for (const status of Object.keys(report.statuses).map(Number)) {
    t.ok([201, 202, 400, 411, 413, 415, 422].includes(status), `status ${status} is one POST /api/memes documents`)
  }
  const expectRefused = ['zero-byte file', 'truncated PNG', 'pixel bomb: IHDR 30000x30000', 'pixel bomb: IHDR 6001x10']
  for (const name of expectRefused) {
    const line = outcomes.find((o) => o.startsWith(`${name}:`))
    t.match(line, /: 4\d\d$/, `${name} is refused`)
  }

  // Every accepted upload is really stored with its media; none half-written.
  const accepted = (await app.db.query<{ id: string; status: string }>('SELECT id, status FROM memes')).rows
  const media = (await app.db.query<{ meme_id: string }>('SELECT meme_id FROM meme_media')).rows
  t.same(media.map((m) => m.meme_id).sort(), accepted.map((m) => m.id).sort(), 'every stored meme has its media and no orphans')
  for (const meme of accepted.filter((m) => m.status === 'approved')) {
    const res = await app.inject(`/media/${meme.id}`)
    t.equal(res.statusCode, 200, `approved ${meme.id.slice(0, 8)} is served`)
    t.equal(res.headers['content-type'], 'image/webp')
  }
  t.equal((await app.inject('/api/health')).statusCode, 200, 'still healthy')
  const grown = heapAfterGc() - baseline
  t.ok(grown < 48 * 2 ** 20, `heap grew by ${(grown / 2 ** 20).toFixed(1)} MiB (< 48 MiB)`)
})
