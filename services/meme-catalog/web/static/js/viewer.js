// The meme view: a modal dialog with the image, caption, tags (each a filter), size, dates and a download link.
// Opened from a search, it marks the caption words that match and outlines them on the image (OCR boxes).
import { altText, errorMessage, request } from './api.js'
import { byId, h } from './dom.js'
import { formatBytes, formatDate } from './format.js'
import { marked } from './gallery.js'

/** @typedef {import('./api.js').Meme} Meme */

/**
 * @typedef {object} MemeMatch
 * @property {{ start: number, end: number }[]} caption
 * @property {{ index: number, ranges: { start: number, end: number }[] }[]} tags
 * @property {{ text: string, start: number, end: number, x: number, y: number, w: number, h: number }[] | null} boxes
 */

const SVG = 'http://www.w3.org/2000/svg'
// A query the API can match on: one letter or digit at least (otherwise it answers 400).
const SEARCHABLE = /[\p{L}\p{N}]/u

/**
 * Outlines of the matched words over the image: an SVG in the image's own pixels, stretched with it. Decorative
 * (aria-hidden): the marks in the caption say the same to everyone.
 * @param {Meme} meme
 * @param {NonNullable<MemeMatch['boxes']>} boxes
 */
function wordBoxes(meme, boxes) {
  const svg = document.createElementNS(SVG, 'svg')
  svg.setAttribute('class', 'word-boxes')
  svg.setAttribute('viewBox', `0 0 ${meme.width} ${meme.height}`)
  svg.setAttribute('preserveAspectRatio', 'none')
  svg.setAttribute('aria-hidden', 'true')
  for (const box of boxes) {
    const rect = document.createElementNS(SVG, 'rect')
    // A little air around the glyphs, so the outline does not cover them.
    const pad = Math.max(2, Math.round(box.h * 0.12))
    rect.setAttribute('x', String(box.x - pad))
    rect.setAttribute('y', String(box.y - pad))
    rect.setAttribute('width', String(box.w + 2 * pad))
    rect.setAttribute('height', String(box.h + 2 * pad))
    rect.setAttribute('rx', String(pad))
    rect.dataset.word = box.text
    svg.append(rect)
  }
  return svg
}

/**
 * @param {{ onTag: (tag: string) => void, onClose: () => void }} handlers
 */
export function createViewer({ onTag, onClose }) {
  /** @type {HTMLDialogElement} */
  const dialog = byId('viewer')
  const title = byId('viewer-title')
  const body = byId('viewer-body')
  /** @type {AbortController | undefined} */
  let pending

  byId('viewer-close').addEventListener('click', () => dialog.close())
  // A click on the backdrop (outside the dialog box) closes it too.
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) dialog.close()
  })
  dialog.addEventListener('close', () => {
    pending?.abort()
    onClose()
  })

  /**
   * @param {Meme} meme
   * @param {MemeMatch | undefined} match
   */
  function render(meme, match) {
    const caption = meme.caption.trim()
    // Ranges count from the caption as stored; the shown caption is trimmed.
    const lead = meme.caption.length - meme.caption.trimStart().length
    const ranges = (match?.caption ?? []).map(({ start, end }) => ({ start: start - lead, end: end - lead }))
    const image = h('img', {
      src: `/media/${meme.id}`,
      alt: altText(meme),
      width: String(meme.width),
      height: String(meme.height),
    })
    title.textContent = caption ? 'Meme' : 'Meme (not captioned yet)'
    // A tag matching a word of the search shows its matched part marked, as the caption does.
    const tagRanges = new Map((match?.tags ?? []).map(({ index, ranges }) => [index, ranges]))
    const tagButtons = meme.tags.map((tag, index) =>
      h(
        'li',
        {},
        h(
          'button',
          { type: 'button', class: 'chip', onclick: () => onTag(tag), title: `Show memes tagged ${tag}` },
          ...marked(tag, tagRanges.get(index) ?? []),
        ),
      ),
    )
    body.replaceChildren(
      ...[
        h('div', { class: 'viewer-figure' }, image, match?.boxes?.length ? wordBoxes(meme, match.boxes) : null),
        caption
          ? h('p', { class: 'caption' }, ...marked(caption, ranges))
          : h('p', { class: 'caption', text: 'No caption yet: the server is still reading this image.' }),
        tagButtons.length
          ? h('ul', { class: 'chips', 'aria-label': 'Tags (select one to filter the gallery)' }, ...tagButtons)
          : null,
        h(
          'dl',
          { class: 'facts' },
          h('dt', { text: 'Size' }),
          h('dd', { text: `${meme.width} × ${meme.height} px, ${formatBytes(meme.byteSize)} (WebP)` }),
          h('dt', { text: 'Added' }),
          h('dd', {}, h('time', { datetime: meme.createdAt, text: formatDate(meme.createdAt) })),
          h('dt', { text: 'Views' }),
          h('dd', { text: `${meme.viewCount} views, ${meme.downloadCount} downloads` }),
        ),
        h('p', {}, h('a', { href: meme.downloadUrl, download: '', class: 'download', text: 'Download image' })),
      ].filter((node) => node !== null),
    )
  }

  return {
    /**
     * @param {string} id
     * @param {string} [query] the gallery's search: its matches are marked
     */
    async open(id, query = '') {
      pending?.abort()
      pending = new AbortController()
      title.textContent = 'Meme'
      body.replaceChildren(h('p', { class: 'hint', text: 'Loading…' }))
      if (!dialog.open) dialog.showModal()
      try {
        const highlight = SEARCHABLE.test(query) ? `?highlight=${encodeURIComponent(query.trim())}` : ''
        const url = `/api/memes/${encodeURIComponent(id)}`
        let result = await request(`${url}${highlight}`, { signal: pending.signal })
        // The matches need the database; the meme alone is served even while it is down.
        if (highlight && result.status >= 500) result = await request(url, { signal: pending.signal })
        if (result.status === 200 && result.body?.meme) render(result.body.meme, result.body.highlight)
        else if (result.status === 404) body.replaceChildren(h('p', { text: 'This meme does not exist or is not public.' }))
        else body.replaceChildren(h('p', { class: 'error', text: errorMessage(result) }))
      } catch {
        // aborted: a newer open() or close() took over
      }
    },
    close() {
      if (dialog.open) dialog.close()
    },
    get isOpen() {
      return dialog.open
    },
  }
}
