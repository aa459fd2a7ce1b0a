import { createHash } from 'node:crypto'
import sharp from 'sharp'

export interface RenderedMeme {
  /** SHA-256 hex of the PNG (the "uploaded" file), as for a real upload. */
  id: string
  png: Buffer
  webp: Buffer
  width: number
  height: number
}

const SIZES: [number, number][] = [
  [640, 480],
  [600, 600],
  [720, 405],
  [540, 600],
]

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Splits a caption into at most two lines of balanced length (top and bottom text). */
function splitLines(caption: string): string[] {
  const words = caption.split(/\s+/)
  if (words.length < 4) return [caption]
  let best = 1
  let bestDiff = Number.POSITIVE_INFINITY
  for (let i = 1; i < words.length; i++) {
    const diff = Math.abs(words.slice(0, i).join(' ').length - words.slice(i).join(' ').length)
    if (diff < bestDiff) {
      best = i
      bestDiff = diff
    }
  }
  return [words.slice(0, best).join(' '), words.slice(best).join(' ')]
}

/** The SVG of demo meme number `n`: a gradient, a simple face and the caption as classic outlined meme text. */
export function demoSvg(caption: string, n: number): { svg: string; width: number; height: number } {
  const [width, height] = SIZES[n % SIZES.length]
  const hue = (n * 47) % 360
  const lines = splitLines(caption.toUpperCase())
  const longest = Math.max(...lines.map((l) => l.length))
  const fontSize = Math.max(18, Math.min(48, Math.floor((width * 1.6) / Math.max(longest, 1))))
  const text = (line: string, y: number) =>
    `<text x="${width / 2}" y="${y}" font-size="${fontSize}" text-anchor="middle">${escapeXml(line)}</text>`
  const top = text(lines[0], fontSize + 16)
  const bottom = lines[1] ? text(lines[1], height - 20) : ''
  const cx = width / 2
  const cy = height / 2
  const r = Math.min(width, height) / 5
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
<stop offset="0" stop-color="hsl(${hue},70%,55%)"/><stop offset="1" stop-color="hsl(${(hue + 60) % 360},70%,30%)"/>
</linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/>
<circle cx="${cx}" cy="${cy}" r="${r}" fill="#ffd54a" stroke="#222" stroke-width="4"/>
<circle cx="${cx - r / 3}" cy="${cy - r / 4}" r="${r / 8}" fill="#222"/>
<circle cx="${cx + r / 3}" cy="${cy - r / 4}" r="${r / 8}" fill="#222"/>
<path d="M ${cx - r / 2} ${cy + r / 4} Q ${cx} ${cy + (n % 2 ? r / 1.3 : 0)} ${cx + r / 2} ${cy + r / 4}" stroke="#222" stroke-width="5" fill="none"/>
<g font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold" fill="#fff" stroke="#000" stroke-width="${Math.max(2, fontSize / 12)}" paint-order="stroke">
${top}${bottom}
</g></svg>`
  return { svg, width, height }
}

export async function renderDemoMeme(caption: string, n: number): Promise<RenderedMeme> {
  const { svg, width, height } = demoSvg(caption, n)
  const png = await sharp(Buffer.from(svg)).png().toBuffer()
  const webp = await sharp(png).webp({ quality: 80 }).toBuffer()
  return { id: createHash('sha256').update(png).digest('hex'), png, webp, width, height }
}
