import sharp from 'sharp'

/**
 * A 320x240 picture of 16x12 random-coloured blocks drawn from `seed`: different seeds give unrelated pictures
 * (perceptual hashes about 32 bits apart), the same seed the same picture.
 */
export async function blockPicture(seed: number): Promise<Buffer> {
  const cols = 16
  const rows = 12
  const block = 20
  const pixels = Buffer.alloc(cols * block * rows * block * 3)
  let state = seed * 2654435761
  const next = () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822519) + 0x6d2b79f5) >>> 0
    return state & 0xff
  }
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const colour = [next(), next(), next()]
      for (let y = 0; y < block; y++)
        for (let x = 0; x < block; x++) {
          const at = ((r * block + y) * cols * block + c * block + x) * 3
          pixels[at] = colour[0]
          pixels[at + 1] = colour[1]
          pixels[at + 2] = colour[2]
        }
    }
  return sharp(pixels, { raw: { width: cols * block, height: rows * block, channels: 3 } })
    .png()
    .toBuffer()
}

/** A near copy as people re-share one: resized to `scale` and re-encoded as a JPEG of `quality`. */
export async function nearCopy(image: Buffer, scale: number, quality: number): Promise<Buffer> {
  const { width = 0 } = await sharp(image).metadata()
  return sharp(image)
    .resize({ width: Math.round(width * scale) })
    .jpeg({ quality })
    .toBuffer()
}
