import { Type } from '@sinclair/typebox'
import { MAX_PAGE_SIZE, Meme } from '../memes/schemas.ts'
import { RateLimit, ref } from '../schemas.ts'
import { MAX_SEARCH_DISTANCE } from './hash-index.ts'

/** Default radius: about 7 bits in 8 equal; re-encoded or resized copies are usually within 4. */
export const DEFAULT_SIMILAR_DISTANCE = 8
export const DEFAULT_SIMILAR_LIMIT = 12

export const SimilarQuery = Type.Object(
  {
    maxDistance: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SEARCH_DISTANCE,
        default: DEFAULT_SIMILAR_DISTANCE,
        description: 'Largest Hamming distance (differing bits of the 64-bit perceptual hash) a match may have.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_SIMILAR_LIMIT,
        description: 'Matches returned at most.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const SimilarMatch = Type.Object(
  {
    distance: Type.Integer({
      minimum: 0,
      maximum: MAX_SEARCH_DISTANCE,
      description: 'Bits in which the meme’s perceptual hash differs from the image’s (0: the same picture).',
    }),
    meme: ref(Meme),
  },
  { $id: 'SimilarMatch', description: 'An approved meme that looks like the image sent.' },
)

export const SimilarMemesResponse = Type.Object(
  {
    maxDistance: Type.Integer({ minimum: 0, maximum: MAX_SEARCH_DISTANCE, description: 'The radius searched.' }),
    matches: Type.Array(ref(SimilarMatch), { description: 'Nearest first, then newest first.' }),
    rateLimit: ref(RateLimit),
  },
  { $id: 'SimilarMemesResponse', description: 'Approved memes whose perceptual hash is near the image’s.' },
)

export const similarSchemas = [SimilarMatch, SimilarMemesResponse]
