import sharp, { type Metadata } from 'sharp'
import { dHash } from './phash.ts'

// libvips' operation cache (50 MB by default) only helps when the same operation runs on the same input
// again; every upload is a new image, so it would hold memory and never hit.
sharp.cache(false)

export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024
export const MAX_EDGE = 6000
export const MAX_PIXELS = 20_000_000
/** The stored WebP: longest edge capped here (never enlarged), lossy quality below. */
export const WEBP_MAX_EDGE = 2048
export const WEBP_QUALITY = 82
/** nsfwjs MobileNetV2 input size. */
export const CLASSIFIER_SIZE = 224

export interface ImageHeader {
  width: number
  height: number
}

/** The reasons an image is refused after its header or decode (all answered 400). */
export class ImageRejectedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ImageRejectedError'
  }
}

/**
 * Reads only the header (dimensions) and enforces the edge and pixel limits, so a pixel flood
 * (a tiny file declaring 30000x30000) is refused before a single pixel is decoded.
 */
export async function readHeader(bytes: Buffer): Promise<ImageHeader> {
  let meta: Metadata
  try {
    // Header only: the pixel limit is checked below with a clear message (sharp's would say "corrupt").
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'warning' }).metadata()
  } catch {
    throw new ImageRejectedError('The image is corrupt or truncated and cannot be read.')
  }
  const { width, height } = meta
  if (!width || !height) throw new ImageRejectedError('The image header has no dimensions.')
  if (width > MAX_EDGE || height > MAX_EDGE) {
    throw new ImageRejectedError(`The image is ${width}x${height} px; each edge may be at most ${MAX_EDGE} px.`)
  }
  if (width * height > MAX_PIXELS) {
    throw new ImageRejectedError(`The image has ${width * height} pixels; at most ${MAX_PIXELS} (20 megapixels) are allowed.`)
  }
  return { width, height }
}

export interface DecodedImage {
  /** Auto-oriented sRGB pixels, 8 bits per channel (3 or 4 channels); no metadata survives this step. */
  data: Buffer
  width: number
  height: number
  channels: 1 | 2 | 3 | 4
}

/** Decodes once (after the header passed); failOn 'warning' turns truncated or corrupt data into an error. */
export async function decode(bytes: Buffer): Promise<DecodedImage> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'warning' })
      .rotate()
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true })
    return { data, width: info.width, height: info.height, channels: info.channels }
  } catch {
    throw new ImageRejectedError('The image is corrupt or truncated and cannot be decoded.')
  }
}

const fromRaw = (image: DecodedImage) =>
  sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })

export interface WebpOutput {
  bytes: Buffer
  width: number
  height: number
}

/** The stored rendition: WebP from raw pixels, so EXIF (GPS included), XMP, IPTC and ICC never reach it. */
export async function toWebp(image: DecodedImage): Promise<WebpOutput> {
  const { data, info } = await fromRaw(image)
    .resize({ width: WEBP_MAX_EDGE, height: WEBP_MAX_EDGE, fit: 'inside', withoutEnlargement: true })
    .webp({ quality: WEBP_QUALITY })
    .toBuffer({ resolveWithObject: true })
  return { bytes: data, width: info.width, height: info.height }
}

/** 224x224 RGB for the classifier; transparency is flattened onto white as a viewer would show it. */
export async function classifierPixels(image: DecodedImage): Promise<Uint8Array> {
  const hasAlpha = image.channels === 2 || image.channels === 4
  // The model resizes bilinearly itself; a linear kernel is as good here and cheaper than lanczos3.
  const resized = fromRaw(image).resize(CLASSIFIER_SIZE, CLASSIFIER_SIZE, { fit: 'fill', kernel: 'linear' })
  const data = await (hasAlpha ? resized.flatten({ background: '#ffffff' }) : resized).removeAlpha().raw().toBuffer()
  // decode() made every image sRGB (3 or 4 bands), so this is always 224x224x3.
  if (data.length !== CLASSIFIER_SIZE * CLASSIFIER_SIZE * 3)
    throw new Error(`unexpected classifier input of ${data.length} bytes`)
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
}

/** 64-bit difference hash from the classifier's 224x224 RGB rendition (tiny input: about a millisecond). */
export async function perceptualHash(pixels224: Uint8Array): Promise<string> {
  const grey = await sharp(pixels224, { raw: { width: CLASSIFIER_SIZE, height: CLASSIFIER_SIZE, channels: 3 } })
    .greyscale()
    .resize(9, 8, { fit: 'fill' })
    .raw()
    .toBuffer()
  return dHash(grey)
}
