/** One nsfwjs class probability. */
export interface Prediction {
  className: string
  probability: number
}

/**
 * How much each class counts towards the score. Porn and Hentai are explicit: full weight.
 * Sexy (suggestive, not explicit) counts 0.7, so on its own it can reach review but never
 * the default reject threshold (85). Drawing and Neutral are safe.
 */
export const CLASS_WEIGHTS: Record<string, number> = { Porn: 1, Hentai: 1, Sexy: 0.7, Drawing: 0, Neutral: 0 }

export interface ModerationResult {
  /** 0..100: the largest weighted unsafe probability. */
  score: number
  /** Names the deciding class and its probability, e.g. "Porn 93.1% (top class: Porn 93.1%)". */
  reason: string
}

const percent = (p: number) => `${(p * 100).toFixed(1)}%`

/** Maps class probabilities to a score and a human-readable reason. */
export function scorePredictions(predictions: Prediction[]): ModerationResult {
  if (predictions.length === 0) throw new Error('the classifier returned no predictions')
  let deciding = predictions[0]
  let best = -1
  for (const p of predictions) {
    const weighted = (CLASS_WEIGHTS[p.className] ?? 0) * p.probability
    if (weighted > best) {
      best = weighted
      deciding = p
    }
  }
  const top = predictions.reduce((a, b) => (b.probability > a.probability ? b : a))
  const score = Math.min(100, Math.max(0, Math.round(best * 100)))
  const weight = CLASS_WEIGHTS[deciding.className] ?? 0
  const weightNote = weight === 1 ? '' : ` x ${weight} weight`
  const reason = `Deciding class ${deciding.className} at ${percent(deciding.probability)}${weightNote}; top class ${top.className} at ${percent(top.probability)}.`
  return { score, reason }
}

export type ModerationDecision = 'approved' | 'pending' | 'rejected'

export function decide(score: number, thresholds: { review: number; reject: number }): ModerationDecision {
  if (score >= thresholds.reject) return 'rejected'
  if (score >= thresholds.review) return 'pending'
  return 'approved'
}
