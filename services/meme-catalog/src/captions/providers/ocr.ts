import { createRequire } from 'node:module'
import path from 'node:path'
import sharp from 'sharp'
import { createWorker, OEM, type Worker } from 'tesseract.js'
import { cleanOcrText, tagsInText } from './text.ts'
import type { Captioner } from './types.ts'

const require = createRequire(import.meta.url)

/** The English LSTM model shipped in the npm package: read from disk, never from a CDN. */
export const ocrLangPath = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int')

// Meme text is white with a black outline: keeping only near-white pixels and inverting leaves
// black glyphs on white paper, which is what Tesseract reads best.
const WHITE_THRESHOLD = 200
// Small images are upscaled so glyph strokes are thick enough; huge ones are shrunk to save time.
const MIN_EDGE = 1000
const MAX_EDGE = 2000

export async function preprocessForOcr(image: Buffer): Promise<Buffer> {
  const meta = await sharp(image).metadata()
  const longest = Math.max(meta.width ?? 0, meta.height ?? 0)
  let pipeline = sharp(image).flatten({ background: '#000000' })
  if (longest > 0 && (longest < MIN_EDGE || longest > MAX_EDGE)) {
    const target = longest < MIN_EDGE ? Math.min(longest * 2, MAX_EDGE) : MAX_EDGE
    pipeline = pipeline.resize({ width: target, height: target, fit: 'inside', kernel: 'lanczos3' })
  }
  return pipeline
    .greyscale()
    .threshold(WHITE_THRESHOLD)
    .negate({ alpha: false })
    .extend({ top: 16, bottom: 16, left: 16, right: 16, background: '#ffffff' })
    .toColourspace('b-w')
    .png({ compressionLevel: 1 })
    .toBuffer()
}

export interface OcrCaptionerOptions {
  /** The Tesseract worker (model and WASM heap) stops after this long without a caption; 0 keeps it. */
  idleMs?: number
}

export interface OcrCaptioner extends Captioner {
  /** Whether the Tesseract worker is running (or starting). */
  readonly loaded: boolean
}

/**
 * Tesseract.js OCR in its own worker thread: one worker, created on first use, reused, and stopped after
 * `idleMs` without a caption (the next caption creates it again).
 */
export function createOcrCaptioner({ idleMs = 0 }: OcrCaptionerOptions = {}): OcrCaptioner {
  let worker: Promise<Worker> | undefined
  let running = 0
  let idleTimer: NodeJS.Timeout | undefined

  function getWorker(): Promise<Worker> {
    worker ??= (async () => {
      const created = await createWorker('eng', OEM.LSTM_ONLY, { langPath: ocrLangPath, cacheMethod: 'none', gzip: true })
      // The PNG carries no density; saying 300 dpi silences Tesseract's resolution warning.
      await created.setParameters({ user_defined_dpi: '300' })
      return created
    })().catch((error) => {
      worker = undefined
      throw error
    })
    return worker
  }

  async function stop() {
    const current = worker
    worker = undefined
    const created = await current?.catch(() => undefined)
    await created?.terminate()
  }

  function stopWhenIdle() {
    clearTimeout(idleTimer)
    if (idleMs <= 0 || running > 0 || !worker) return
    idleTimer = setTimeout(() => {
      if (running === 0) void stop()
    }, idleMs)
    // An idle timer never holds the process open.
    idleTimer.unref()
  }

  return {
    name: 'ocr',
    get loaded() {
      return worker !== undefined
    },
    async caption({ image, catalog }) {
      running++
      clearTimeout(idleTimer)
      try {
        const prepared = await preprocessForOcr(image)
        const { data } = await (await getWorker()).recognize(prepared)
        const caption = cleanOcrText(data.text ?? '')
        return { caption, tags: tagsInText(caption, catalog) }
      } finally {
        running--
        stopWhenIdle()
      }
    },
    async close() {
      clearTimeout(idleTimer)
      await stop()
    },
  }
}
