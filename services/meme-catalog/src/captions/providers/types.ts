export interface CaptionInput {
  /** The stored WebP of the meme. */
  image: Buffer
  /** Names of the current tag catalog; the answer may only use these. */
  catalog: string[]
  /** Aborted when the app shuts down. */
  signal: AbortSignal
}

export interface CaptionResult {
  caption: string
  tags: string[]
}

export interface Captioner {
  readonly name: 'ocr' | 'openai' | 'none'
  /** Null: this provider produces nothing (the job completes without touching the meme). */
  caption(input: CaptionInput): Promise<CaptionResult | null>
  close(): Promise<void>
}

/** A failure safe to store in caption_jobs.last_error (never carries request headers or keys). */
export class CaptionerError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CaptionerError'
  }
}
