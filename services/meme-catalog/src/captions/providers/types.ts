export interface CaptionInput {
  /** The stored WebP of the meme. */
  image: Buffer
  /** Names of the current tag catalog; the answer may only use these. */
  catalog: string[]
  /** Aliases of catalog tags: an answer naming one keeps it, and storing the result turns it into its tag. */
  aliases?: string[]
  /** Aborted when the app shuts down. */
  signal: AbortSignal
}

/** A word the OCR read: where it is in the caption and where it is drawn on the stored image. */
export interface CaptionWord {
  text: string
  /** UTF-16 offset of its first character in the caption. */
  start: number
  /** Offset after its last character. */
  end: number
  /** Its box in whole pixels of the stored WebP, origin top left. */
  x: number
  y: number
  w: number
  h: number
}

export interface CaptionResult {
  caption: string
  tags: string[]
  /** The caption's words with their boxes (OCR); null when the provider cannot tell where text is. */
  words: CaptionWord[] | null
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
