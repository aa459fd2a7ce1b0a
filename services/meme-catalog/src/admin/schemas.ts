import { retryAfterHeader } from '@app/common'
import { Type } from '@sinclair/typebox'
import { MAX_CAPTION_LENGTH, MAX_TAG_LENGTH, MEME_ID_PATTERN, Meme } from '../memes/schemas.ts'
import { ErrorBody, ref } from '../schemas.ts'

// Admin schemas are inline (no $id): a named schema would also land in the public document's components.
const { status: _publicStatus, ...memeFields } = Meme.properties

export const MemeStatus = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')])

export const CaptionJobState = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('done'),
  Type.Literal('failed'),
])

/** The full record an admin reviews: the public Meme fields plus moderation and captioning state. */
export const AdminMeme = Type.Object(
  {
    ...memeFields,
    status: MemeStatus,
    updatedAt: Type.String({ format: 'date-time' }),
    adminMediaUrl: Type.String({
      format: 'uri-reference',
      description: 'The image for any status (needs the admin token; `url` serves approved memes only).',
    }),
    phash: Type.Union([Type.String({ pattern: '^[0-9a-f]{16}$' }), Type.Null()], {
      description: '64-bit perceptual hash (dHash) as 16 hex characters; null when not computed.',
    }),
    nearDuplicateOf: Type.Array(Type.String({ pattern: MEME_ID_PATTERN }), {
      description: 'Ids of existing memes this one looks nearly identical to (a review hint; not rejected for it).',
    }),
    captionSource: Type.Union([Type.Literal('ocr'), Type.Literal('openai'), Type.Literal('admin'), Type.Null()], {
      description: 'Who wrote the caption: a captioner (ocr, openai), an admin edit, or null (stored with the meme).',
    }),
    captionJob: Type.Union(
      [
        Type.Object({
          state: CaptionJobState,
          attempts: Type.Integer({ minimum: 0 }),
          lastError: Type.Union([Type.String(), Type.Null()]),
          updatedAt: Type.String({ format: 'date-time' }),
        }),
        Type.Null(),
      ],
      { description: 'The latest caption job of this meme; null when none was queued.' },
    ),
  },
  { description: 'A meme as the admin API shows it (any status, never deleted ones).' },
)

export const AdminMemeEnvelope = Type.Object({ meme: AdminMeme })

export const AdminMemeList = Type.Object({
  page: Type.Integer({ minimum: 1, description: 'The page served (clamped to the last page).' }),
  pageSize: Type.Integer({ minimum: 1 }),
  total: Type.Integer({ minimum: 0 }),
  totalPages: Type.Integer({ minimum: 0 }),
  memes: Type.Array(AdminMeme),
})

export const AdminMemeListQuery = Type.Object(
  {
    status: Type.Optional(MemeStatus),
    page: Type.Integer({ minimum: 1, default: 1 }),
    pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 24 }),
  },
  { additionalProperties: false },
)

export const ReviewQuery = Type.Object(
  {
    cursor: Type.Optional(
      Type.String({
        pattern: MEME_ID_PATTERN,
        description: 'The last meme of the previous page (`nextCursor`); omit for the start.',
      }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: 10, default: 5 }),
  },
  { additionalProperties: false },
)

export const SuggestedTag = Type.Object({
  tag: Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH, description: 'A catalog tag the meme does not carry yet.' }),
  source: Type.Union([Type.Literal('model'), Type.Literal('ocr'), Type.Literal('caption')], {
    description: 'model: proposed by the vision captioner; ocr / caption: the tag or an alias found in the OCR text / caption.',
  }),
  matchedText: Type.Union([Type.String(), Type.Null()], {
    description: 'The words of the text that matched; null for model proposals.',
  }),
})

export const ReviewItem = Type.Object({
  meme: AdminMeme,
  nearDuplicates: Type.Array(
    Type.Object({
      id: Type.String({ pattern: MEME_ID_PATTERN }),
      url: Type.String({ format: 'uri-reference', description: 'The approved meme’s public image.' }),
      distance: Type.Integer({ minimum: 0, maximum: 64, description: 'Bits of the perceptual hashes that differ.' }),
    }),
    { maxItems: 5, description: 'Approved memes whose perceptual hash is within the near-duplicate distance, closest first.' },
  ),
  suggestedTags: Type.Array(SuggestedTag, { description: 'Never applied by themselves: accepting one is a tag edit (PATCH).' }),
})

export const ReviewPage = Type.Object({
  total: Type.Integer({ minimum: 0, description: 'Memes pending review.' }),
  items: Type.Array(ReviewItem),
  nextCursor: Type.Union([Type.String({ pattern: MEME_ID_PATTERN }), Type.Null()], { description: 'Null on the last page.' }),
})

export const MemeIdParams = Type.Object({ id: Type.String({ pattern: MEME_ID_PATTERN }) })

export const MemePatchBody = Type.Object(
  {
    caption: Type.Optional(Type.String({ maxLength: MAX_CAPTION_LENGTH })),
    tags: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH }), {
        maxItems: 50,
        description: 'The complete new tag list; every name must exist in the catalog (compared lowercase).',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
)

export const CaptionJobAccepted = Type.Object({
  job: Type.Object({ id: Type.Integer(), state: CaptionJobState, runAt: Type.String({ format: 'date-time' }) }),
})

export const AdminTag = Type.Object({
  name: Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH }),
  createdAt: Type.String({ format: 'date-time' }),
  memeCount: Type.Integer({ minimum: 0, description: 'Memes carrying the tag (any status, not deleted).' }),
  aliases: Type.Array(Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH }), {
    description: 'Other names of the tag, sorted: a tag filter or query word naming one finds the tag’s memes.',
  }),
})

export const AdminTagList = Type.Object({ tags: Type.Array(AdminTag) })

export const TagCreateBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Trimmed and lowercased; 1..60 characters after that.',
    }),
  },
  { additionalProperties: false },
)

export const TagNameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) })

export const TagAlias = Type.Object({
  alias: Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH }),
  tag: Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH, description: 'The catalog tag the alias stands for.' }),
  createdAt: Type.String({ format: 'date-time' }),
})

export const TagAliasList = Type.Object({ aliases: Type.Array(TagAlias) })

export const AliasCreateBody = Type.Object(
  {
    alias: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Normalized like a tag name (trimmed, lowercased, 1..60 characters after that).',
    }),
  },
  { additionalProperties: false },
)

export const TagAliasParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  alias: Type.String({ minLength: 1, maxLength: 200 }),
})

/** Statuses every admin route can answer besides its own. */
export const commonAdminResponses = {
  401: ref(ErrorBody, {
    'x-response-description': 'Missing or wrong admin bearer token.',
    headers: { 'WWW-Authenticate': { type: 'string', description: 'Bearer realm="meme-catalog-admin"' } },
  }),
  429: ref(ErrorBody, {
    'x-response-description': 'Too many admin requests from this IP; retry after Retry-After seconds.',
    headers: retryAfterHeader,
  }),
}
