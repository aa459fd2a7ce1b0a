import type { RenditionSet } from '../media/rendition-store.ts'
import { RENDITION_NAMES, renditionSize } from '../media/renditions.ts'
import type { PublicMemeRecord } from '../memes/repository.ts'
import { ratingOf } from '../search/rating.ts'
import type { GiphyGifT } from './schemas.ts'

type Image = GiphyGifT['images']['original']

/** Words of the caption in a GIPHY-style slug: at most six, letters and digits only, then the id. */
export function slugOf(caption: string, id: string): string {
  const words: string[] = []
  for (const word of caption.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '') continue
    words.push(word)
    if (words.length === 6) break
  }
  return [...words, id].join('-')
}

/** GIPHY's date-time form: "YYYY-MM-DD HH:MM:SS", UTC. */
export function giphyDateTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ')
}

function image(url: string, width: number, height: number, size: number): Image {
  const bytes = String(size)
  return { url, width: String(width), height: String(height), size: bytes, webp: url, webp_size: bytes }
}

/**
 * A read-model record as GIPHY's GIF object. `base` is the absolute origin the caller reached (image URLs must be
 * absolute for a client on another site); `renditions` are the stored renditions' sizes (null when the meme has no
 * stored image, e.g. bulk-loaded test corpora: sizes are then 0). Numbers are strings, as GIPHY sends them.
 */
export function toGiphyGif(record: Readonly<PublicMemeRecord>, base: string, renditions: RenditionSet | null): GiphyGifT {
  const media = `${base}/media/${record.id}`
  const source = { width: record.width, height: record.height }
  const images = { original: image(media, record.width, record.height, record.byteSize) } as GiphyGifT['images']
  for (const name of RENDITION_NAMES) {
    const stored = renditions?.get(name)
    const size = stored ?? { ...renditionSize(name, source), size: 0 }
    images[name] = image(`${media}/${name}`, size.width, size.height, size.size)
  }
  return {
    type: 'gif',
    id: record.id,
    url: `${base}/api/memes/${record.id}`,
    slug: slugOf(record.caption, record.id),
    embed_url: media,
    username: '',
    source: '',
    title: record.caption,
    alt_text: record.caption,
    rating: ratingOf(record.moderationScore),
    content_url: '',
    source_tld: '',
    source_post_url: '',
    is_sticker: 0,
    import_datetime: giphyDateTime(record.createdAt),
    trending_datetime: '0000-00-00 00:00:00',
    tags: record.tags,
    images,
  }
}
