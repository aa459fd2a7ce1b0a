import { test } from 'tap'
import { dHash, hammingDistance } from '../../src/images/phash.ts'
import { checkJpegStructure, checkPngStructure, sniffImageType } from '../../src/images/sniff.ts'
import { craftedPng, jpegImage, pngImage } from '../uploads/fixtures.ts'

test('magic bytes decide the type', async (t) => {
  t.equal(sniffImageType(await pngImage(1)), 'image/png')
  t.equal(sniffImageType(await jpegImage(1)), 'image/jpeg')
  t.equal(sniffImageType(Buffer.from('GIF89a')), null)
  t.equal(sniffImageType(Buffer.from('<svg')), null)
  t.equal(sniffImageType(Buffer.from([0xff, 0xd8])), null, 'too short')
  t.equal(sniffImageType(Buffer.alloc(0)), null)
})

test('PNG structure: complete, truncated, trailing data', async (t) => {
  const png = await pngImage(2)
  t.equal(checkPngStructure(png), 'complete')
  t.equal(checkPngStructure(Buffer.concat([png, Buffer.alloc(16)])), 'complete', 'zero padding is tolerated')
  t.equal(checkPngStructure(png.subarray(0, png.length - 12)), 'truncated', 'no IEND')
  t.equal(checkPngStructure(png.subarray(0, 40)), 'truncated')
  t.equal(checkPngStructure(Buffer.concat([png, Buffer.from('<html>')])), 'trailing')
  t.equal(
    checkPngStructure(craftedPng(30000, 30000)),
    'complete',
    'a flood header is structurally fine; the size check refuses it',
  )
})

test('JPEG structure: complete, truncated, trailing data', async (t) => {
  const jpeg = await jpegImage(3, 200, 100)
  t.equal(checkJpegStructure(jpeg), 'complete')
  t.equal(checkJpegStructure(jpeg.subarray(0, jpeg.length - 2)), 'truncated', 'no EOI')
  t.equal(checkJpegStructure(jpeg.subarray(0, Math.floor(jpeg.length / 2))), 'truncated')
  t.equal(checkJpegStructure(Buffer.concat([jpeg, Buffer.from('PK\x03\x04')])), 'trailing')
  const preview = await jpegImage(4, 40, 20)
  t.equal(checkJpegStructure(Buffer.concat([jpeg, preview])), 'complete', 'MPF: a second complete JPEG may follow')
  t.equal(checkJpegStructure(Buffer.concat([jpeg, preview, Buffer.from('<html>')])), 'trailing')
  t.equal(checkJpegStructure(Buffer.concat([jpeg, preview.subarray(0, 50)])), 'trailing', 'a broken appended JPEG is not MPF')
})

test('dHash and Hamming distance', async (t) => {
  const ramp = new Uint8Array(72).map((_, i) => 255 - (i % 9) * 20)
  t.equal(dHash(ramp), 'ffffffffffffffff', 'every left pixel brighter')
  t.equal(dHash(new Uint8Array(72)), '0000000000000000')
  t.equal(hammingDistance('ffffffffffffffff', '0000000000000000'), 64)
  t.equal(hammingDistance('00000000000000f0', '0000000000000010'), 3)
  t.throws(() => dHash(new Uint8Array(10)))
})
