// The gallery grid, its status line and pager.
import { altText } from './api.js'
import { h } from './dom.js'
import { stateUrl } from './state.js'

/** @typedef {import('./api.js').Meme} Meme */
/** @typedef {import('./state.js').PageState} PageState */

/**
 * @param {Meme} meme
 * @param {PageState} state
 */
function card(meme, state) {
  const caption = meme.caption.trim()
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
      h('span', { class: caption ? 'caption' : 'caption empty', text: caption || 'No caption yet' }),
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
  return filters.length ? `${count} match ${filters.join(' with ')}.` : `${count}, newest first.`
}

/**
 * @param {{ grid: HTMLElement, status: HTMLElement, pageInfo: HTMLElement, prev: HTMLButtonElement, next: HTMLButtonElement }} els
 * @param {PageState} state
 * @param {{ page: number, totalPages: number, total: number, memes: Meme[] }} list
 */
export function renderGallery(els, state, list) {
  const totalPages = Math.max(1, list.totalPages)
  els.grid.replaceChildren(...list.memes.map((meme) => card(meme, state)))
  if (list.total === 0) els.grid.append(h('li', { class: 'empty-state', text: describeResult(state, 0) }))
  els.status.textContent = describeResult(state, list.total)
  els.pageInfo.textContent = `Page ${list.page} of ${totalPages}`
  els.prev.disabled = list.page <= 1
  els.next.disabled = list.page >= totalPages
}
