/**
 * Content ratings in GIPHY's MPAA-style scale, from the moderation score (0 = certainly safe, 100 = certainly
 * explicit). A meme's rating is the first level whose bound its score is below; public memes reach `r` only when
 * an admin approved an upload that waited for review (MODERATION_REVIEW_SCORE, 50 by default).
 */
export const RATINGS = ['g', 'pg', 'pg-13', 'r'] as const
export type Rating = (typeof RATINGS)[number]

/** Exclusive upper score bound of each level but the last: g 0-9, pg 10-29, pg-13 30-49, r 50-100. */
const BELOW = [10, 30, 50]

export function ratingOf(moderationScore: number): Rating {
  for (let level = 0; level < BELOW.length; level++) if (moderationScore < BELOW[level]) return RATINGS[level]
  return 'r'
}

// A control character cannot start a tag name (names have none), so these never collide with a tag.
const FILTER_PREFIX = '\u0001rating<='

/** The index filter key selecting memes rated `rating` or below. */
export function ratingFilter(rating: Exclude<Rating, 'r'>): string {
  return FILTER_PREFIX + rating
}

/**
 * The filter keys a meme is indexed under: one per level at or above its own, except `r` (everything is rated r or
 * below, so asking for r filters nothing).
 */
export function ratingFilters(moderationScore: number): readonly string[] {
  return FILTERS_BY_LEVEL[RATINGS.indexOf(ratingOf(moderationScore))] as readonly string[]
}

const FILTER_KEYS = (['g', 'pg', 'pg-13'] as const).map(ratingFilter)
// One shared, frozen list per level: the index asks for every document it adds.
const FILTERS_BY_LEVEL = RATINGS.map((_, level) => Object.freeze(FILTER_KEYS.slice(level)))
