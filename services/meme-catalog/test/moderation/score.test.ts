import { test } from 'tap'
import { decide, scorePredictions } from '../../src/moderation/score.ts'

const p = (Drawing: number, Hentai: number, Neutral: number, Porn: number, Sexy: number) =>
  Object.entries({ Drawing, Hentai, Neutral, Porn, Sexy }).map(([className, probability]) => ({ className, probability }))

test('the score is the largest weighted unsafe probability and the reason names it', async (t) => {
  t.same(scorePredictions(p(0.01, 0.02, 0.9, 0.05, 0.02)), {
    score: 5,
    reason: 'Deciding class Porn at 5.0%; top class Neutral at 90.0%.',
  })
  t.same(scorePredictions(p(0.0, 0.93, 0.02, 0.03, 0.02)), {
    score: 93,
    reason: 'Deciding class Hentai at 93.0%; top class Hentai at 93.0%.',
  })
  const sexy = scorePredictions(p(0, 0, 0, 0, 1))
  t.equal(sexy.score, 70, 'suggestive alone reaches review but not the default reject threshold')
  t.equal(sexy.reason, 'Deciding class Sexy at 100.0% x 0.7 weight; top class Sexy at 100.0%.')
  t.equal(scorePredictions(p(0.5, 0, 0.5, 0, 0)).score, 0, 'drawings and neutral images are safe')
  t.throws(() => scorePredictions([]))
})

test('thresholds: at or above reject rejects, at or above review queues', async (t) => {
  const thresholds = { review: 50, reject: 85 }
  t.equal(decide(49, thresholds), 'approved')
  t.equal(decide(50, thresholds), 'pending')
  t.equal(decide(84, thresholds), 'pending')
  t.equal(decide(85, thresholds), 'rejected')
  t.equal(decide(100, thresholds), 'rejected')
  t.equal(decide(0, { review: 0, reject: 85 }), 'pending')
  t.equal(decide(0, { review: 50, reject: 0 }), 'rejected')
  t.equal(decide(100, { review: 101, reject: 101 }), 'approved', '101 switches a threshold off')
})
