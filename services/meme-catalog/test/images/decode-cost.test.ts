import sharp, { type JpegOptions } from 'sharp'
import { test } from 'tap'
import { decodeCostRefusal, jpegDecodeCostRefusal, MAX_CMYK_PIXELS, pngDecodeCostRefusal } from '../../src/images/decode-cost.ts'
import { walkJpegSegments } from '../../src/images/sniff.ts'
import { jpegScanBomb } from '../support/jpeg-scan-bomb.ts'
import { blackPng, hiddenInflatePng, zTxtChunk } from '../support/png-bombs.ts'

/** A flat picture at the largest size allowed: encoders pick their scan scripts by size and format, not content. */
const largest = () => sharp({ create: { width: 6000, height: 3333, channels: 3, background: '#3a7bd5' } })

/** The same file declaring another size: the scan script an encoder writes does not depend on the size. */
function withFrameSize(jpeg: Buffer, width: number, height: number): Buffer {
  const copy = Buffer.from(jpeg)
  walkJpegSegments(copy, (marker, body) => {
    if (marker < 0xc0 || marker > 0xc2) return
    body.writeUInt16BE(height, 1)
    body.writeUInt16BE(width, 3)
  })
  return copy
}

const smallCmyk = (options: JpegOptions = {}) =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a7bd5' } })
    .toColourspace('cmyk')
    .jpeg(options)
    .toBuffer()

test('what real encoders write passes, at the largest size allowed', async (t) => {
  const encodings: [string, JpegOptions][] = [
    ['baseline 4:2:0', {}],
    ['libjpeg progressive 4:2:0', { progressive: true }],
    ['libjpeg progressive 4:4:4', { progressive: true, chromaSubsampling: '4:4:4' }],
    ['mozjpeg 4:4:4', { mozjpeg: true, chromaSubsampling: '4:4:4' }],
    ['mozjpeg optimised scans', { progressive: true, optimiseScans: true, trellisQuantisation: true }],
  ]
  for (const [name, options] of encodings) {
    const jpeg = await largest().jpeg(options).toBuffer()
    t.equal(jpegDecodeCostRefusal(jpeg), null, name)
  }
  const grey = await largest().greyscale().toColourspace('b-w').jpeg({ progressive: true }).toBuffer()
  t.equal(jpegDecodeCostRefusal(grey), null, 'greyscale progressive')
  const cmyk = withFrameSize(await smallCmyk({ progressive: true }), 4000, 3000)
  t.equal(jpegDecodeCostRefusal(cmyk), null, 'CMYK progressive (libjpeg script), 12 megapixels')
})

test('JPEG scan bombs: too many scans, or too many blocks over all scans', async (t) => {
  t.equal(jpegDecodeCostRefusal(jpegScanBomb({ width: 64, height: 64, channels: 1, acScans: 99 })), null, '100 scans')
  t.match(jpegDecodeCostRefusal(jpegScanBomb({ width: 64, height: 64, channels: 1, acScans: 100 })), /more than 100 scans/)
  t.match(
    jpegDecodeCostRefusal(jpegScanBomb({ width: 2000, height: 2000, channels: 3, acScans: 3000, corruptLastScan: true })),
    /more than 100 scans/,
  )
  // 312,750 blocks per scan: 25 scans pass, 26 would decode over 8 million blocks.
  t.equal(jpegDecodeCostRefusal(jpegScanBomb({ width: 6000, height: 3333, channels: 1, acScans: 24 })), null)
  t.match(jpegDecodeCostRefusal(jpegScanBomb({ width: 6000, height: 3333, channels: 1, acScans: 25 })), /too many blocks/)
})

test('JPEG coding processes and layouts the decoder would spend too long on', async (t) => {
  const baseline = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } })
    .jpeg()
    .toBuffer()
  const sof = baseline.indexOf(Buffer.from([0xff, 0xc0]))
  for (const [marker, name] of [
    [0xc9, 'arithmetic'],
    [0xc3, 'lossless'],
    [0xc5, 'hierarchical'],
  ] as const) {
    const patched = Buffer.from(baseline)
    patched[sof + 1] = marker
    t.match(jpegDecodeCostRefusal(patched), /Arithmetic-coded, lossless and hierarchical/, name)
  }
  const twoComponents = Buffer.from(baseline)
  twoComponents[sof + 9] = 2
  t.match(jpegDecodeCostRefusal(twoComponents), /2 colour components/)

  t.ok(4001 * 3000 > MAX_CMYK_PIXELS)
  t.match(jpegDecodeCostRefusal(withFrameSize(await smallCmyk(), 4001, 3000)), /CMYK JPEGs may have at most 12000000 pixels/)
})

test('PNG: compressed metadata and image data past the rows are bounded; real files pass', async (t) => {
  t.equal(await pngDecodeCostRefusal(blackPng(64, 64, Array(32).fill(zTxtChunk(1000)))), null, '32 small zTXt chunks')
  t.match(await pngDecodeCostRefusal(blackPng(64, 64, Array(33).fill(zTxtChunk(1000)))), /more than 32 compressed/)
  t.equal(await pngDecodeCostRefusal(blackPng(64, 64, [zTxtChunk(4_000_000)])), null, '4 MB of text')
  t.match(await pngDecodeCostRefusal(blackPng(64, 64, [zTxtChunk(4_000_000), zTxtChunk(200_000)])), /inflate to more than/)
  t.match(await pngDecodeCostRefusal(hiddenInflatePng(70)), /far more than its pixels need/, '1.1 GB behind one pixel')
  t.equal(await pngDecodeCostRefusal(hiddenInflatePng(1)), null, 'a small stream is not worth inflating twice')

  // Noise does not compress: over 1 MB of image data, so each of these is inflated and measured.
  const noise = (width: number, height: number, channels: 3 | 4 = 3) =>
    sharp({ create: { width, height, channels, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
  const real: [string, Buffer][] = [
    ['RGB', await noise(800, 500).png().toBuffer()],
    ['RGBA 16-bit interlaced', await noise(700, 500, 4).toColourspace('rgb16').png({ progressive: true }).toBuffer()],
    ['RGB interlaced, odd size', await noise(1001, 777).png({ progressive: true }).toBuffer()],
    ['palette 1-bit interlaced', await noise(3001, 3001).png({ palette: true, colours: 2, progressive: true }).toBuffer()],
    ['greyscale 8-bit', await noise(1500, 1001).greyscale().toColourspace('b-w').png().toBuffer()],
  ]
  for (const [name, png] of real) {
    t.ok(png.length > 1024 * 1024, `${name}: ${png.length} bytes`)
    t.equal(await decodeCostRefusal(png, 'image/png'), null, name)
  }
})
