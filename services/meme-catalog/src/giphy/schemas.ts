import { noStoreHeader, rateLimitHeaders, retryAfterHeader } from '@app/common'
import { type Static, type TLiteral, type TSchema, Type } from '@sinclair/typebox'
import { RATINGS, type Rating } from '../search/rating.ts'

/** GIPHY's limits: at most 50 results a page (25 by default), offsets 0..4999, search terms of 50 characters. */
export const MAX_LIMIT = 50
export const DEFAULT_LIMIT = 25
export const MAX_OFFSET = 4999
export const MAX_TERM_LENGTH = 50
export const MAX_IDS = 100
export const MAX_SUGGESTIONS = 50
export const DEFAULT_SUGGESTIONS = 5

const numeral = (description: string) => Type.String({ pattern: '^[0-9]+$', description })

export const GiphyImage = Type.Object(
  {
    url: Type.String({ format: 'uri', description: 'The WebP image (GIPHY sends a GIF here; this catalog has WebP only).' }),
    width: numeral('Width in pixels, as a string.'),
    height: numeral('Height in pixels, as a string.'),
    size: numeral('Bytes of the file at url, as a string.'),
    webp: Type.String({ format: 'uri', description: 'The same WebP image.' }),
    webp_size: numeral('Bytes of the WebP file, as a string.'),
  },
  {
    $id: 'GiphyImage',
    description: 'One rendition. No mp4 or mp4_size: the catalog holds still WebP images, no video.',
  },
)

export const GiphyGif = Type.Object(
  {
    type: Type.Literal('gif'),
    id: Type.String({ pattern: '^[a-f0-9]{64}$', description: 'The meme id (SHA-256 hex of the upload).' }),
    url: Type.String({ format: 'uri', description: 'The meme in the catalog’s public API.' }),
    slug: Type.String({ description: 'Words of the caption, then the id.' }),
    embed_url: Type.String({ format: 'uri', description: 'The original image.' }),
    username: Type.Literal('', { description: 'Always empty: uploads are anonymous.' }),
    source: Type.Literal('', { description: 'Always empty: the catalog keeps no source page.' }),
    title: Type.String({ description: 'The meme’s caption (empty until captioned).' }),
    alt_text: Type.String({ description: 'The caption again, for assistive technology.' }),
    rating: Type.Union(
      RATINGS.map((r) => Type.Literal(r)),
      { description: 'From the moderation score: g 0-9, pg 10-29, pg-13 30-49, r 50-100.' },
    ),
    content_url: Type.Literal(''),
    source_tld: Type.Literal(''),
    source_post_url: Type.Literal(''),
    is_sticker: Type.Literal(0),
    import_datetime: Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
      description: 'When the meme was uploaded, UTC, as "YYYY-MM-DD HH:MM:SS".',
    }),
    trending_datetime: Type.Literal('0000-00-00 00:00:00', { description: 'GIPHY’s value for never trending.' }),
    tags: Type.Array(Type.String(), { description: 'The meme’s catalog tags.' }),
    images: Type.Object(
      {
        original: ref(GiphyImage),
        fixed_height: ref(GiphyImage),
        fixed_height_small: ref(GiphyImage),
        fixed_width: ref(GiphyImage),
        fixed_width_small: ref(GiphyImage),
        downsized: ref(GiphyImage),
        preview_webp: ref(GiphyImage),
      },
      {
        description:
          'original: the stored image; fixed_height 200 px tall, fixed_width 200 px wide, their _small forms 100 px, ' +
          'downsized at most 480 px a side, preview_webp at most 150 px a side (all WebP).',
      },
    ),
  },
  { $id: 'GiphyGif', description: 'An approved meme as a GIPHY GIF object.' },
)
export type GiphyGifT = Static<typeof GiphyGif>

export const GiphyMeta = Type.Object(
  {
    status: Type.Integer({ description: 'The HTTP status.' }),
    msg: Type.String({ description: '"OK", or what was wrong.' }),
    response_id: Type.String({ description: 'An id of this answer; empty on 401 and 429, as GIPHY sends them.' }),
  },
  { $id: 'GiphyMeta' },
)

export const GiphyPagination = Type.Object(
  {
    total_count: Type.Integer({ minimum: 0, description: 'Matching memes.' }),
    count: Type.Integer({ minimum: 0, description: 'Items in data.' }),
    offset: Type.Integer({ minimum: 0, description: 'Position of the first item.' }),
  },
  { $id: 'GiphyPagination' },
)

export const GiphyError = Type.Object(
  {
    data: Type.Array(Type.Never(), { maxItems: 0 }),
    meta: ref(GiphyMeta),
  },
  { $id: 'GiphyError', description: 'GIPHY’s error envelope: empty data, the status and message in meta.' },
)

export const GiphyGifList = Type.Object(
  { data: Type.Array(ref(GiphyGif)), pagination: ref(GiphyPagination), meta: ref(GiphyMeta) },
  { $id: 'GiphyGifList' },
)

export const GiphyOneGif = Type.Object({ data: ref(GiphyGif), meta: ref(GiphyMeta) }, { $id: 'GiphyOneGif' })

export const GiphyRandom = Type.Object(
  {
    data: Type.Union([ref(GiphyGif), Type.Array(Type.Never(), { maxItems: 0 })], {
      description: 'One random meme, or an empty array when nothing matches.',
    }),
    meta: ref(GiphyMeta),
  },
  { $id: 'GiphyRandom' },
)

export const GiphyTermList = Type.Object(
  {
    data: Type.Array(Type.Object({ name: Type.String() })),
    pagination: ref(GiphyPagination),
    meta: ref(GiphyMeta),
  },
  { $id: 'GiphyTermList' },
)

/** The named schemas of the GIPHY document (its components), added in the GIPHY scope only. */
export const giphySchemas: TSchema[] = [
  GiphyImage,
  GiphyGif,
  GiphyMeta,
  GiphyPagination,
  GiphyError,
  GiphyGifList,
  GiphyOneGif,
  GiphyRandom,
  GiphyTermList,
]

/** Reference to a GIPHY schema by its $id (components/schemas/<id> in /v1/openapi.json). */
export function ref<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  const described =
    typeof options['x-response-description'] === 'string' ? { description: options['x-response-description'] } : {}
  return Type.Unsafe<Static<T>>({ ...options, ...described, $ref: `${schema.$id}#` })
}

// Validation failures are answered in GIPHY's envelope by the scope's error handler (400, the parameter named).
const apiKey = Type.Optional(
  Type.String({ description: 'Your key; required when the server sets GIPHY_API_KEYS (otherwise ignored).' }),
)
const limit = Type.Optional(
  Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Results per page.' }),
)
const offset = Type.Optional(
  Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Position of the first result.' }),
)
const rating = Type.Optional(
  Type.Union((['y', ...RATINGS] as const).map((r) => Type.Literal(r)) as [TLiteral<'y' | Rating>], {
    description: 'That rating and below (y is taken as g). Default: every rating.',
  }),
)
const lang = Type.Optional(Type.String({ description: 'Accepted for compatibility; the catalog has one language.' }))

export const SearchQuery = Type.Object({
  api_key: apiKey,
  q: Type.String({
    description: `Search words matched against captions and tags; longer than ${MAX_TERM_LENGTH} characters: 414, as GIPHY.`,
  }),
  limit,
  offset,
  rating,
  lang,
})

export const TrendingQuery = Type.Object({ api_key: apiKey, limit, offset, rating })

export const RandomQuery = Type.Object({
  api_key: apiKey,
  tag: Type.Optional(Type.String({ description: 'Only memes matching this word or tag.' })),
  rating,
})

export const IdsQuery = Type.Object({
  api_key: apiKey,
  ids: Type.String({ description: `Comma-separated meme ids, at most ${MAX_IDS}; unknown ones are left out.` }),
})

export const GifIdParams = Type.Object({ gif_id: Type.String({ description: 'The meme id.' }) })
export const GifIdQuery = Type.Object({ api_key: apiKey })

export const TagsQuery = Type.Object({
  api_key: apiKey,
  q: Type.String({ description: 'The beginning of a word or tag.' }),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_SUGGESTIONS, default: DEFAULT_SUGGESTIONS, description: 'Suggestions.' }),
  ),
  offset,
})

/** Response descriptions with the headers each answer carries (RateLimit-* are added by the OpenAPI transform). */
export const okResponse = (schema: TSchema, description: string) =>
  ref(schema, { 'x-response-description': description, headers: noStoreHeader })

export const errorResponse = (description: string, headers = {}) =>
  ref(GiphyError, { 'x-response-description': description, headers: { ...noStoreHeader, ...headers } })

/** The errors every GIPHY route can answer. */
export const errorResponses = {
  400: errorResponse('A parameter is missing or invalid (named in meta.msg).'),
  401: errorResponse('GIPHY_API_KEYS is set and api_key is missing or not one of them (meta.msg "Unauthorized").'),
  429: errorResponse('The read budget of this address or of this api_key is spent (meta.msg "API rate limit exceeded").', {
    ...retryAfterHeader,
    ...rateLimitHeaders,
  }),
  503: errorResponse(
    'Right after start-up while the search index loads, while the database is unreachable, or while too many ' +
      'renditions are being made: retry after Retry-After seconds.',
    retryAfterHeader,
  ),
}

export const termTooLongResponse = errorResponse(`The search term is longer than ${MAX_TERM_LENGTH} characters.`)
export const notFoundResponse = errorResponse('No approved meme has this id (meta.msg "Not Found").')
