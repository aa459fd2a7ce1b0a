import sharp from 'sharp'
import { MAX_PIXELS, WEBP_MAX_EDGE } from '../images/process.ts'

/** The resized forms of a meme's image, by their GIPHY names. */
export const RENDITIONS = {
  fixed_height: { height: 200 },
  fixed_height_small: { height: 100 },
  fixed_width: { width: 200 },
  fixed_width_small: { width: 100 },
  downsized: { inside: 480 },
  preview_webp: { inside: 150 },
} as const satisfies Record<string, RenditionSpec>

export type RenditionName = keyof typeof RENDITIONS
export const RENDITION_NAMES = Object.keys(RENDITIONS) as RenditionName[]

type RenditionSpec = { width: number } | { height: number } | { inside: number }

const QUALITY = { downsized: 80, preview_webp: 60 } as Partial<Record<RenditionName, number>>
const DEFAULT_QUALITY = 75

export function isRenditionName(name: string): name is RenditionName {
  return Object.hasOwn(RENDITIONS, name)
}

export interface Dimensions {
  width: number
  height: number
}

/**
 * The size a rendition has for an image of `source` size: fixed edges are exact (a small image is enlarged, as GIPHY's
 * are), the other edge keeps the aspect ratio within 1..WEBP_MAX_EDGE (a panorama's fixed_height is cut to that width
 * and squeezed rather than made 40,000 px wide); `inside` fits the box and never enlarges.
 */
export function renditionSize(name: RenditionName, source: Dimensions): Dimensions {
  const spec: RenditionSpec = RENDITIONS[name]
  const clamp = (n: number) => Math.min(WEBP_MAX_EDGE, Math.max(1, Math.round(n)))
  if ('width' in spec) return { width: spec.width, height: clamp((source.height * spec.width) / source.width) }
  if ('height' in spec) return { width: clamp((source.width * spec.height) / source.height), height: spec.height }
  const scale = Math.min(1, spec.inside / Math.max(source.width, source.height))
  return { width: clamp(source.width * scale), height: clamp(source.height * scale) }
}

export interface Rendition extends Dimensions {
  name: RenditionName
  bytes: Buffer
}

/**
 * Every rendition of a stored WebP, decoded once. The stored image is at most WEBP_MAX_EDGE a side and was checked
 * at upload; the pixel limit still applies, as to every decode.
 */
export async function renderAll(webp: Buffer): Promise<Rendition[]> {
  const image = sharp(webp, { limitInputPixels: MAX_PIXELS, failOn: 'warning' })
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true })
  const source = { width: info.width, height: info.height }
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } }
  return Promise.all(
    RENDITION_NAMES.map(async (name) => {
      const size = renditionSize(name, source)
      const bytes = await sharp(data, raw)
        .resize(size.width, size.height, { fit: 'fill' })
        .webp({ quality: QUALITY[name] ?? DEFAULT_QUALITY })
        .toBuffer()
      return { name, bytes, ...size }
    }),
  )
}
