/**
 * The trending score of a meme: views and downloads, each weighted and decayed with a half-life, summed. It is
 * kept as log2 of sum(weight * 2^(t / HALF_LIFE_MS)), t the event's time in epoch milliseconds: adding events adds
 * terms and never rewrites the others (their decay is relative), and the logarithm never overflows. Larger is
 * hotter; a meme never viewed has no score (NULL, -Infinity in memory) and lists after every scored one.
 */

/** Two days: a view counts half as much as one two days newer. */
export const TRENDING_HALF_LIFE_MS = 2 * 24 * 60 * 60 * 1000
/** A download shows more interest than a view. */
export const DOWNLOAD_WEIGHT = 2
export const NO_TRENDING_SCORE = Number.NEGATIVE_INFINITY

/** The score of `views` views and `downloads` downloads at time `at` (epoch ms), alone. */
export function eventScore(views: number, downloads: number, at: number): number {
  return Math.log2(views + DOWNLOAD_WEIGHT * downloads) + at / TRENDING_HALF_LIFE_MS
}

/** Two scores summed (log2(2^a + 2^b)), as the counter flush's SQL adds them. */
export function addScores(a: number, b: number): number {
  if (a === NO_TRENDING_SCORE) return b
  if (b === NO_TRENDING_SCORE) return a
  return Math.max(a, b) + Math.log2(1 + 2 ** -Math.min(Math.abs(a - b), 64))
}

/**
 * SQL of the same sum, `current` the stored score (NULL when none) and `added` the new events' score. Past 64
 * doublings the smaller term is below a double's precision; the cap also keeps power() from underflowing.
 */
export function addScoresSql(current: string, added: string): string {
  return `CASE WHEN ${current} IS NULL THEN ${added}
    ELSE greatest(${current}, ${added}) + ln(1 + power(2::float8, -least(abs(${current} - ${added}), 64))) / ln(2::float8) END`
}
