import sharp from 'sharp'
import { test } from 'tap'
import { createOcrCaptioner } from '../../src/captions/providers/ocr.ts'
import { type OcrGeometry, placeWords } from '../../src/captions/providers/word-boxes.ts'

const WIDTH = 800
const HEIGHT = 600

/**
 * A meme with two lines of white outlined words; `only` draws that word alone (the others keep their place but
 * are invisible), so its ink can be measured.
 */
function memeSvg(lines: [string[], string[]], only?: string): string {
  const line = (words: string[], y: number) =>
    `<text x="${WIDTH / 2}" y="${y}">${words
      .map((word) =>
        only === undefined || word === only ? `<tspan>${word}</tspan>` : `<tspan fill="none" stroke="none">${word}</tspan>`,
      )
      .join(' ')}</text>`
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
  ${only === undefined ? `<rect width="${WIDTH}" height="${HEIGHT}" fill="#3d6b8f"/><circle cx="400" cy="300" r="140" fill="#d9a441"/>` : ''}
  <g font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold" font-size="52" fill="#ffffff" stroke="#000000"
     stroke-width="4" paint-order="stroke" text-anchor="middle">${line(lines[0], 90)}${line(lines[1], HEIGHT - 40)}</g></svg>`
}

/** The box of the word's white fill as drawn (pixels bright and opaque). */
async function inkBox(lines: [string[], string[]], word: string) {
  const { data, info } = await sharp(Buffer.from(memeSvg(lines, word)))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  let [x0, y0, x1, y1] = [WIDTH, HEIGHT, 0, 0]
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const at = (y * info.width + x) * 4
      if (data[at + 3] > 128 && data[at] > 200) {
        x0 = Math.min(x0, x)
        y0 = Math.min(y0, y)
        x1 = Math.max(x1, x + 1)
        y1 = Math.max(y1, y + 1)
      }
    }
  }
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }
}

test('real OCR on a generated meme: each known word’s box lies where it was drawn, in the stored image’s pixels', async (t) => {
  const lines: [string[], string[]] = [
    ['NEED', 'MORE', 'COFFEE'],
    ['MONDAY', 'AGAIN'],
  ]
  // Stored as the upload pipeline stores it: a WebP, 800 px wide (the OCR reads it upscaled 2x, plus a margin).
  const image = await sharp(Buffer.from(memeSvg(lines)))
    .webp({ quality: 82 })
    .toBuffer()
  const captioner = createOcrCaptioner()
  t.teardown(() => captioner.close())
  const result = await captioner.caption({ image, catalog: [], signal: AbortSignal.timeout(60_000) })
  t.equal(result?.caption, 'NEED MORE COFFEE MONDAY AGAIN')
  const words = result?.words ?? []
  t.same(
    words.map((w) => [w.text, w.start, w.end]),
    [
      ['NEED', 0, 4],
      ['MORE', 5, 9],
      ['COFFEE', 10, 16],
      ['MONDAY', 17, 23],
      ['AGAIN', 24, 29],
    ],
    'every word placed in the caption',
  )
  const TOLERANCE = 6
  for (const word of lines.flat()) {
    const drawn = await inkBox(lines, word)
    const read = words.find((w) => w.text === word)
    t.ok(read, `${word} was read`)
    if (!read) continue
    for (const key of ['x', 'y', 'w', 'h'] as const) {
      t.ok(
        Math.abs(read[key] - drawn[key]) <= TOLERANCE,
        `${word}: ${key} ${read[key]} is within ${TOLERANCE} px of the drawn ${drawn[key]}`,
      )
    }
  }
})

const identity: OcrGeometry = { scaleX: 2, scaleY: 2, margin: 16, width: 400, height: 300 }
const word = (text: string, x0: number, y0 = 16, x1 = x0 + 40, y1 = 56) => ({ text, bbox: { x0, y0, x1, y1 } })

test('placing words: back through the scale and margin, inside the image', async (t) => {
  const [placed] = placeWords('HI', [[word('HI', 116, 36, 216, 96)]], identity)
  t.same(placed, { text: 'HI', start: 0, end: 2, x: 50, y: 10, w: 50, h: 30 })
  const [edge] = placeWords('HI', [[word('HI', 0, 0, 2000, 2000)]], identity)
  t.same([edge.x, edge.y, edge.w, edge.h], [0, 0, 400, 300], 'a box past the edges is cut to the image')
})

test('placing words: a line dropped from the caption is skipped, a line cut by its length keeps its whole words', async (t) => {
  const lines = [[word('TOP', 16)], [word('~', 16), word('.:', 60)], [word('BOTTOM', 16), word('LINE', 60)]]
  t.same(
    placeWords('TOP BOTTOM LINE', lines, identity).map((w) => [w.text, w.start, w.end]),
    [
      ['TOP', 0, 3],
      ['BOTTOM', 4, 10],
      ['LINE', 11, 15],
    ],
  )
  t.same(
    placeWords('TOP BOTTOM LI', lines, identity).map((w) => w.text),
    ['TOP', 'BOTTOM'],
    'the word cut in half has no box',
  )
  t.same(placeWords('', lines, identity), [], 'an empty caption has no words')
  t.same(
    placeWords('TOP BOTTOM LINE', [[word('TOP', 16)], [word('BOTTOM', 16), word('LANE', 60)]], identity).map((w) => w.text),
    ['TOP'],
    'a line that is not in the caption as read is not guessed at',
  )
})
