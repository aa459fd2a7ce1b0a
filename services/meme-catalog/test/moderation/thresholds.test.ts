import { test } from 'tap'
import { buildApp, pngImage, uploadRequest } from '../uploads/fixtures.ts'

test('thresholds drive 201, 202 and 422 with the real classifier', async (t) => {
  const png = await pngImage(70, 128, 96)
  const base = await buildApp(t)
  const approved = await base.inject(uploadRequest(png))
  t.equal(approved.statusCode, 201, approved.body)
  const score: number = approved.json().moderationScore
  t.ok(score < 50, `benign image scores ${score}`)

  const pendingApp = await buildApp(t, { MODERATION_REVIEW_SCORE: String(score) })
  const pending = await pendingApp.inject(uploadRequest(png))
  t.equal(pending.statusCode, 202, 'score at the review threshold waits for review')
  t.equal(pending.json().message, 'Upload queued for admin review.')
  t.equal(pending.json().meme.status, 'pending')
  t.equal(pending.json().moderationScore, score, 'the same real score')

  const justBelow = await buildApp(t, { MODERATION_REVIEW_SCORE: String(score + 1) })
  t.equal((await justBelow.inject(uploadRequest(png))).statusCode, 201, 'one below the review threshold is approved')

  const rejectApp = await buildApp(t, { MODERATION_REVIEW_SCORE: '0', MODERATION_REJECT_SCORE: String(score) })
  let calls = 0
  const moderate = rejectApp.moderation.moderate
  rejectApp.moderation.moderate = async (pixels) => {
    calls++
    return moderate(pixels)
  }
  const rejected = await rejectApp.inject(uploadRequest(png))
  t.equal(rejected.statusCode, 422)
  t.same(rejected.json(), {
    error: 'The upload was rejected by moderation.',
    moderationScore: score,
    moderationReason: approved.json().moderationReason,
  })
  const { rows } = await rejectApp.db.query<{ memes: number; rejected: number }>(
    'SELECT (SELECT count(*)::int FROM memes) AS memes, (SELECT count(*)::int FROM rejected_hashes) AS rejected',
  )
  t.same(rows[0], { memes: 0, rejected: 1 }, 'nothing visible; the hash is remembered')
  const again = await rejectApp.inject(uploadRequest(png))
  t.equal(again.statusCode, 422)
  t.equal(again.json().moderationScore, score)
  t.equal(calls, 1, 'the same bytes are refused without running the model again')
})
