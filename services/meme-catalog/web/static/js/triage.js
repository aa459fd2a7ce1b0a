// The triage view: one pending upload at a time with its near-duplicates and suggested tags, driven from the keyboard.
import { adminRequest } from './admin-api.js'
import { altText } from './api.js'
import { byId, h } from './dom.js'

/** @typedef {import('./api.js').ApiResult} ApiResult */

const PAGE = 5
const SOURCES = { model: 'proposed by the captioning model', ocr: 'found in the OCR text', caption: 'found in the caption' }
const CAPTION_SOURCES = { ocr: 'OCR', openai: 'vision model', admin: 'admin edit' }

/**
 * @param {{
 *   usable: (result: ApiResult) => boolean,
 *   say: (text: string, error?: boolean) => void,
 *   image: (id: string, alt: string) => HTMLImageElement,
 *   changed: () => Promise<void>,
 * }} page
 */
export function createTriage({ usable, say, image, changed }) {
  const card = byId('triage-card')
  const position = byId('triage-position')
  /** @type {any[]} */
  let items = []
  let index = 0
  let total = 0
  /** @type {string | null} */
  let nextCursor = null

  /** @param {string | null} cursor */
  async function fetchPage(cursor) {
    const params = new URLSearchParams({ limit: String(PAGE) })
    if (cursor) params.set('cursor', cursor)
    const result = await adminRequest(`/api/admin/review?${params}`)
    if (!usable(result)) return null
    total = result.body?.total ?? 0
    nextCursor = result.body?.nextCursor ?? null
    return Array.isArray(result.body?.items) ? result.body.items : []
  }

  async function load() {
    const first = await fetchPage(null)
    if (!first) return
    items = first
    index = 0
    render()
  }

  /** Moves to the next upload, reading the next page of the queue when the loaded ones are done. */
  async function next() {
    if (index + 1 >= items.length && nextCursor) {
      const more = await fetchPage(nextCursor)
      if (more) items = [...items, ...more]
    }
    if (index + 1 < items.length) index++
    render()
  }

  function previous() {
    if (index > 0) index--
    render()
  }

  /** @param {'approve' | 'reject'} verb */
  async function decide(verb) {
    const item = items[index]
    if (!item) return
    const result = await adminRequest(`/api/admin/memes/${item.meme.id}/${verb}`, { method: 'POST' })
    if (!usable(result)) return
    say(`${verb === 'approve' ? 'Approved' : 'Rejected'} ${item.meme.originalName}.`)
    // It left the queue: the next one takes its place (the cursor of a reviewed meme still marks where to go on).
    items.splice(index, 1)
    total = Math.max(0, total - 1)
    if (index >= items.length && nextCursor) {
      const more = await fetchPage(nextCursor)
      if (more) items = [...items, ...more]
    }
    index = Math.min(index, Math.max(0, items.length - 1))
    render()
    await changed()
  }

  /** @param {string} tag */
  async function accept(tag) {
    const item = items[index]
    if (!item) return
    const tags = [...new Set([...(item.meme.tags ?? []), tag])]
    const result = await adminRequest(`/api/admin/memes/${item.meme.id}`, { method: 'PATCH', json: { tags } })
    if (!usable(result)) return
    item.meme = result.body.meme
    item.suggestedTags = item.suggestedTags.filter((/** @type {{ tag: string }} */ s) => s.tag !== tag)
    say(`Added the tag “${tag}” to ${item.meme.originalName}.`)
    render()
    await changed()
  }

  function render() {
    const item = items[index]
    position.textContent = item ? `Upload ${index + 1} of ${total} pending` : ''
    /** @type {HTMLButtonElement} */
    const back = byId('triage-prev')
    /** @type {HTMLButtonElement} */
    const forward = byId('triage-next')
    back.disabled = index === 0
    forward.disabled = index + 1 >= items.length && !nextCursor
    if (!item) {
      card.replaceChildren(h('p', { class: 'hint', text: 'Nothing waits for review.' }))
      return
    }
    const { meme, nearDuplicates = [], suggestedTags = [] } = item
    card.replaceChildren(
      h(
        'article',
        { class: 'review triage', 'data-id': meme.id },
        h(
          'div',
          { class: 'side-by-side' },
          h('figure', {}, image(meme.id, `This upload: ${altText(meme)}`), h('figcaption', { text: 'This upload' })),
          ...nearDuplicates.map((/** @type {{ id: string, url: string, distance: number }} */ other) =>
            h(
              'figure',
              { class: 'near-duplicate', 'data-duplicate': other.id },
              h('img', { src: other.url, alt: 'An approved meme that looks nearly the same', width: '320', height: '320' }),
              h('figcaption', {
                text: `Approved ${other.id.slice(0, 12)}…, ${other.distance} bit${other.distance === 1 ? '' : 's'} apart`,
              }),
            ),
          ),
        ),
        h(
          'div',
          {},
          h(
            'dl',
            { class: 'facts' },
            h('dt', { text: 'Moderation' }),
            h('dd', { text: `${meme.moderationScore}/100: ${meme.moderationReason}` }),
            h('dt', { text: 'Caption' }),
            h('dd', { class: 'triage-caption', text: meme.caption || '(none yet)' }),
            h('dt', { text: 'Caption by' }),
            h('dd', { text: CAPTION_SOURCES[/** @type {keyof typeof CAPTION_SOURCES} */ (meme.captionSource)] ?? '—' }),
            h('dt', { text: 'Tags' }),
            h('dd', { class: 'triage-tags', text: (meme.tags ?? []).join(', ') || 'none' }),
            h('dt', { text: 'Near-duplicates' }),
            h('dd', { text: nearDuplicates.length ? String(nearDuplicates.length) : 'none among approved memes' }),
          ),
          h('h3', { text: 'Suggested tags' }),
          suggestedTags.length
            ? h(
                'ul',
                { class: 'chips suggestions' },
                ...suggestedTags.map((/** @type {{ tag: string, source: string, matchedText: string | null }} */ s) =>
                  h(
                    'li',
                    {},
                    h('button', {
                      type: 'button',
                      class: 'chip',
                      'data-suggest': s.tag,
                      title: `${SOURCES[/** @type {keyof typeof SOURCES} */ (s.source)]}${s.matchedText ? `: “${s.matchedText}”` : ''}`,
                      'aria-label': `Add tag ${s.tag} (${SOURCES[/** @type {keyof typeof SOURCES} */ (s.source)]})`,
                      text: `+ ${s.tag}`,
                    }),
                  ),
                ),
              )
            : h('p', { class: 'hint', text: 'No suggestions.' }),
          h(
            'div',
            { class: 'actions' },
            h('button', { type: 'button', 'data-decide': 'approve', text: 'Approve (a)' }),
            h('button', { type: 'button', class: 'danger', 'data-decide': 'reject', text: 'Reject (r)' }),
          ),
        ),
      ),
    )
  }

  card.addEventListener('click', (event) => {
    const target = /** @type {HTMLElement} */ (event.target)
    const chip = target.closest('button[data-suggest]')
    if (chip instanceof HTMLButtonElement) accept(chip.dataset.suggest ?? '')
    const decision = target.closest('button[data-decide]')
    if (decision instanceof HTMLButtonElement) decide(decision.dataset.decide === 'approve' ? 'approve' : 'reject')
  })
  byId('triage-prev').addEventListener('click', previous)
  byId('triage-next').addEventListener('click', () => next())

  /** @type {Record<string, () => unknown>} */
  const keys = { a: () => decide('approve'), r: () => decide('reject'), j: next, n: next, k: previous, p: previous }
  document.addEventListener('keydown', (event) => {
    const target = /** @type {HTMLElement} */ (event.target)
    // Typing in a field never reviews anything.
    if (target.closest('input, textarea, select, [contenteditable]') || target.isContentEditable) return
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return
    const action = keys[event.key]
    if (!action || card.closest('[hidden]')) return
    event.preventDefault()
    action()
  })

  return { load }
}
