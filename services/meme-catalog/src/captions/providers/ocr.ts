import { createRequire } from 'node:module'
import path from 'node:path'
import sharp from 'sharp'
import { createWorker, OEM, type Worker } from 'tesseract.js'
import { cleanOcrText, tagsInText } from './text.ts'
import type { Captioner } from './types.ts'
import { type OcrGeometry, placeWords } from './word-boxes.ts'

const require = createRequire(import.meta.url)

/** The English LSTM model shipped in the npm package: read from disk, never from a CDN. */
export const ocrLangPath = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int')

// Meme text is white with a black outline: keeping only near-white pixels and inverting leaves
// black glyphs on white paper, which is what Tesseract reads best.
const WHITE_THRESHOLD = 200
// Small images are upscaled so glyph strokes are thick enough; huge ones are shrunk to save time.
const MIN_EDGE = 1000
const MAX_EDGE = 2000

// White paper around the text: Tesseract misses glyphs that touch the edge.
const MARGIN = 16

/** The image Tesseract reads, and how its pixels map back to the stored image's. */
export async function prepareForOcr(image: Buffer): Promise<{ png: Buffer; geometry: OcrGeometry }> {
  const meta = await sharp(image).metadata()
  const width = meta.width ?? 0
  const height = meta.height ?? 0
  const longest = Math.max(width, height)
  let pipeline = sharp(image).flatten({ background: '#000000' })
  if (longest > 0 && (longest < MIN_EDGE || longest > MAX_EDGE)) {
    const target = longest < MIN_EDGE ? Math.min(longest * 2, MAX_EDGE) : MAX_EDGE
    pipeline = pipeline.resize({ width: target, height: target, fit: 'inside', kernel: 'lanczos3' })
  }
  const { data, info } = await pipeline
    .greyscale()
    .threshold(WHITE_THRESHOLD)
    .negate({ alpha: false })
    .extend({ top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN, background: '#ffffff' })
    .toColourspace('b-w')
    .png({ compressionLevel: 1 })
    .toBuffer({ resolveWithObject: true })
  // The scale actually applied (sharp rounds the resized edges), not the one asked for.
  const scaleX = width > 0 ? (info.width - 2 * MARGIN) / width : 1
  const scaleY = height > 0 ? (info.height - 2 * MARGIN) / height : 1
  return { png: data, geometry: { scaleX, scaleY, margin: MARGIN, width, height } }
}

export async function preprocessForOcr(image: Buffer): Promise<Buffer> {
  return (await prepareForOcr(image)).png
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
    async caption({ image, catalog, aliases = [] }) {
      running++
      clearTimeout(idleTimer)
      try {
        const { png, geometry } = await prepareForOcr(image)
        const { data } = await (await getWorker()).recognize(png, {}, { text: true, blocks: true })
        const caption = cleanOcrText(data.text ?? '')
        const lines = (data.blocks ?? []).flatMap((block) => block.paragraphs.flatMap((p) => p.lines.map((l) => l.words)))
        const tags = tagsInText(caption, [...catalog, ...aliases])
        return { caption, tags, words: placeWords(caption, lines, geometry) }
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
