import type { CaptionWord } from './types.ts'

/** A word as Tesseract reports it: its text and its box on the image it read (x1/y1 exclusive). */
export interface OcrWord {
  text: string
  bbox: { x0: number; y0: number; x1: number; y1: number }
}

/** How the image Tesseract read was made from the stored one: each stored pixel became `scale` pixels, plus a margin. */
export interface OcrGeometry {
  scaleX: number
  scaleY: number
  margin: number
  /** Size of the stored image. */
  width: number
  height: number
}

const clamp = (value: number, max: number) => Math.min(Math.max(value, 0), max)

/** A box on the preprocessed image as whole pixels of the stored image, kept inside it. */
export function toStoredPixels(bbox: OcrWord['bbox'], g: OcrGeometry): Pick<CaptionWord, 'x' | 'y' | 'w' | 'h'> {
  const x0 = clamp(Math.floor((bbox.x0 - g.margin) / g.scaleX), g.width)
  const y0 = clamp(Math.floor((bbox.y0 - g.margin) / g.scaleY), g.height)
  const x1 = clamp(Math.ceil((bbox.x1 - g.margin) / g.scaleX), g.width)
  const y1 = clamp(Math.ceil((bbox.y1 - g.margin) / g.scaleY), g.height)
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }
}

/**
 * The words of the lines Tesseract read, placed in the caption made of them (cleanOcrText: kept lines joined by
 * spaces, then possibly cut short). Lines are matched in order from a cursor: a line whose words are not next in
 * the caption was dropped as specks and is skipped; a line cut by the caption's length keeps its whole words.
 * Linear in the caption and the words.
 */
export function placeWords(caption: string, lines: readonly (readonly OcrWord[])[], geometry: OcrGeometry): CaptionWord[] {
  const placed: CaptionWord[] = []
  let cursor = 0
  for (const line of lines) {
    const found: CaptionWord[] = []
    let at = cursor
    let complete = true
    for (const word of line) {
      const text = word.text.trim()
      if (text === '') continue
      while (caption.charCodeAt(at) === 32) at++
      if (!caption.startsWith(text, at)) {
        complete = false
        // The caption ends inside this word (cut at its length limit): the words before it still stand.
        if (found.length > 0 && text.startsWith(caption.slice(at))) complete = true
        break
      }
      found.push({ text, start: at, end: at + text.length, ...toStoredPixels(word.bbox, geometry) })
      at += text.length
    }
    if (!complete || found.length === 0) continue
    placed.push(...found)
    cursor = at
  }
  return placed
}
