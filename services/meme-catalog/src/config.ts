import { baseConfigProperties } from '@app/common'
import { type Static, Type } from '@sinclair/typebox'

const int = (defaultValue: number, minimum: number, description: string, maximum?: number) =>
  Type.Integer({ default: defaultValue, minimum, ...(maximum === undefined ? {} : { maximum }), description })

export const configSchema = Type.Object({
  ...baseConfigProperties,
  PORT: int(8080, 0, 'TCP port', 65535),
  DEMO_MEMES: Type.Union([Type.Literal('auto'), Type.Literal('true'), Type.Literal('false')], {
    default: 'auto',
    description: 'auto (on for the embedded database), true or false',
  }),
  READ_RATE_LIMIT: int(120, 1, 'API reads per IP per window'),
  MEDIA_RATE_LIMIT: int(600, 1, 'media reads per IP per window'),
  RATE_LIMIT_WINDOW_SECONDS: int(60, 1, 'rate-limit window in seconds'),
  CORS_UPLOAD_ORIGINS: Type.String({ default: '', description: 'comma-separated origins allowed to upload cross-origin' }),
  MEDIA_CACHE_MB: int(
    32,
    0,
    'an integer 0..65536: MiB of image bytes GET /media/{id} keeps in memory, least recently used dropped first (0: no cache)',
    65_536,
  ),
  MEDIA_COUNTER_FLUSH_MS: int(5_000, 50, 'how often batched view/download counts are written, in milliseconds'),
  // The GIPHY-compatible API (src/giphy).
  GIPHY_API_KEYS: Type.String({
    default: '',
    description: 'comma-separated api_key values /v1 serves (secret); empty: any api_key, or none, is served',
  }),
  GIPHY_KEY_RATE_LIMIT: int(600, 1, 'GIPHY API reads per api_key per window (on top of READ_RATE_LIMIT per IP)'),
  // Captioning (src/captions) and the admin API (src/admin).
  CAPTIONER: Type.Union([Type.Literal('ocr'), Type.Literal('openai'), Type.Literal('none')], {
    default: 'ocr',
    description: 'caption provider: ocr, openai or none',
  }),
  CAPTIONER_URL: Type.Optional(
    // No user:password@ in it: errors and logs name the URL, so credentials go in CAPTIONER_API_KEY.
    Type.String({
      pattern: '^https?://[^/?#@]+([/?#].*)?$',
      description: 'base URL of an OpenAI-compatible API (e.g. http://127.0.0.1:11434/v1), without credentials',
    }),
  ),
  CAPTIONER_API_KEY: Type.Optional(Type.String({ description: 'bearer key of the captioner API (secret)' })),
  CAPTIONER_MODEL: Type.String({ default: 'gpt-4o-mini', minLength: 1, description: 'model name sent to the captioner API' }),
  CAPTIONER_TIMEOUT_MS: int(60_000, 100, 'timeout of one captioner API call in milliseconds'),
  CAPTION_CONCURRENCY: int(1, 0, 'caption jobs run at once by this instance (0: this instance runs none)', 8),
  CAPTION_MAX_ATTEMPTS: int(5, 1, 'attempts per caption job before it is marked failed', 100),
  CAPTION_RETRY_BASE_MS: int(5_000, 1, 'first retry delay of a failed caption job; doubles per attempt'),
  CAPTION_LEASE_SECONDS: int(300, 1, 'seconds a claimed caption job stays locked before another worker may reclaim it'),
  CAPTION_POLL_MS: int(5_000, 50, 'fallback poll interval of the caption worker in milliseconds'),
  ADMIN_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description: 'bearer token of the admin API (secret; at least 16 characters); unset: no admin API',
    }),
  ),
  ADMIN_RATE_LIMIT: int(300, 1, 'admin API requests per IP per window'),
  // Uploads and moderation (src/uploads, src/moderation).
  MODEL_IDLE_SECONDS: int(
    300,
    0,
    'seconds without an upload after which the moderation model is unloaded (0: never); the next upload loads it again',
  ),
  OCR_IDLE_SECONDS: int(
    10,
    0,
    'seconds without a caption job after which the OCR engine is unloaded (0: never); the next job loads it again',
  ),
  MODERATION_REVIEW_SCORE: int(50, 0, 'moderation score at or above which an upload waits for admin review', 101),
  MODERATION_REJECT_SCORE: int(85, 0, 'moderation score at or above which an upload is rejected', 101),
  UPLOAD_QUOTA_HOUR: int(10, 0, 'uploads per IP in any 60 minutes'),
  UPLOAD_QUOTA_DAY: int(50, 0, 'uploads per IP in any 24 hours'),
  UPLOAD_QUOTA_GLOBAL_DAY: int(1000, 0, 'uploads from everyone in any 24 hours'),
  UPLOAD_RATE_LIMIT: int(30, 1, 'upload requests per IP per rate-limit window (any outcome)'),
  UPLOAD_DECODE_FAILURE_COST: int(
    10,
    0,
    'upload rate-limit units an upload spends, on top of its request, when its image fails to decode',
  ),
  UPLOAD_DECODE_QUEUE: int(
    8,
    0,
    'images (uploads and searches by image) that may wait for one of the two decode slots; more are answered 503',
  ),
  SIMILAR_RATE_LIMIT: int(20, 1, 'searches by image (POST /api/memes/similar) per IP per rate-limit window'),
})

export type Config = Static<typeof configSchema>
