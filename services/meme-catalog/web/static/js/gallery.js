// The gallery grid, its status line and pager.
import { altText } from './api.js'
import { h } from './dom.js'
import { stateUrl } from './state.js'

/** @typedef {import('./api.js').Meme} Meme */
/** @typedef {import('./state.js').PageState} PageState */

/**
 * @typedef {object} Highlight
 * @property {string} id
 * @property {{ start: number, end: number }[]} caption
 * @property {{ index: number, ranges: { start: number, end: number }[] }[]} tags
 */

/**
 * The text with its matched ranges in <mark> elements: text nodes and elements only, never HTML.
 * @param {string} text
 * @param {{ start: number, end: number }[]} ranges in order, not overlapping
 * @returns {(Node | string)[]}
 */
export function marked(text, ranges) {
  /** @type {(Node | string)[]} */
  const parts = []
  let at = 0
  for (const { start, end } of ranges) {
    if (start < at || end > text.length || end <= start) continue
    if (start > at) parts.push(document.createTextNode(text.slice(at, start)))
    parts.push(h('mark', { text: text.slice(start, end) }))
    at = end
  }
  if (at < text.length) parts.push(document.createTextNode(text.slice(at)))
  return parts
}

/**
 * @param {Meme} meme
 * @param {PageState} state
 * @param {Highlight | undefined} highlight
 */
function card(meme, state, highlight) {
  // Ranges are offsets of the caption as sent: trim by hand so they stay valid.
  const lead = meme.caption.length - meme.caption.trimStart().length
  const caption = meme.caption.trim()
  const ranges = (highlight?.caption ?? []).map(({ start, end }) => ({ start: start - lead, end: end - lead }))
  const matchedTags = (highlight?.tags ?? []).map(({ index, ranges }) =>
    h('span', { class: 'tag' }, ...marked(meme.tags[index] ?? '', ranges)),
  )
  return h(
    'li',
    {},
    h(
      'a',
      { class: 'card', href: stateUrl({ ...state, meme: meme.id }), 'data-meme': meme.id },
      h('img', {
        src: `/media/${meme.id}`,
        alt: altText(meme),
        width: String(meme.width),
        height: String(meme.height),
        loading: 'lazy',
        decoding: 'async',
      }),
      caption
        ? h('span', { class: 'caption' }, ...marked(caption, ranges))
        : h('span', { class: 'caption empty', text: 'No caption yet' }),
      matchedTags.length > 0 ? h('span', { class: 'matched-tags', 'aria-label': 'Matching tags' }, ...matchedTags) : null,
    ),
  )
}

/**
 * What the status line says about the current result.
 * @param {PageState} state
 * @param {number} total
 */
export function describeResult(state, total) {
  const q = state.q.trim()
  const filters = [q ? `“${q}”` : '', state.tags.length ? `tags ${state.tags.join(' + ')}` : ''].filter(Boolean)
  if (total === 0) {
    return filters.length ? `No memes match ${filters.join(' with ')}.` : 'No memes yet. Upload the first one below!'
  }
  const count = `${total} ${total === 1 ? 'meme' : 'memes'}`
  const trending = state.order === 'trending' && !q
  if (trending) return `${count}${filters.length ? ` match ${filters.join(' with ')}` : ''}, trending first.`
  return filters.length ? `${count} match ${filters.join(' with ')}.` : `${count}, newest first.`
}

/**
 * @param {{ grid: HTMLElement, status: HTMLElement, pageInfo: HTMLElement, prev: HTMLButtonElement, next: HTMLButtonElement }} els
 * @param {PageState} state
 * @param {{ page: number, totalPages: number, total: number, memes: Meme[], highlights?: Highlight[] }} list
 */
export function renderGallery(els, state, list) {
  const totalPages = Math.max(1, list.totalPages)
  const highlights = new Map((list.highlights ?? []).map((highlight) => [highlight.id, highlight]))
  els.grid.replaceChildren(...list.memes.map((meme) => card(meme, state, highlights.get(meme.id))))
  if (list.total === 0) els.grid.append(h('li', { class: 'empty-state', text: describeResult(state, 0) }))
  els.status.textContent = describeResult(state, list.total)
  els.pageInfo.textContent = `Page ${list.page} of ${totalPages}`
  els.prev.disabled = list.page <= 1
  els.next.disabled = list.page >= totalPages
}
