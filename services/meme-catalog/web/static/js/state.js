// The page state lives in the URL (?order=…&q=…&tag=…&tag=…&page=…&meme=…) so every view can be shared and reloaded.

/**
 * @typedef {object} PageState
 * @property {string} q
 * @property {string[]} tags lowercase, unique
 * @property {number} page
 * @property {'newest' | 'trending'} order the gallery tab (a search lists by relevance whatever the tab)
 * @property {string | null} meme id of the meme shown in the viewer
 */

const MEME_ID = /^[a-f0-9]{64}$/

/** @returns {PageState} */
export function readState() {
  const params = new URLSearchParams(location.search)
  const page = Number.parseInt(params.get('page') ?? '1', 10)
  const meme = params.get('meme')
  return {
    q: (params.get('q') ?? '').slice(0, 200),
    tags: [
      ...new Set(
        params
          .getAll('tag')
          .map((t) => t.trim().toLowerCase())
          .filter(Boolean),
      ),
    ].slice(0, 20),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    order: params.get('order') === 'trending' ? 'trending' : 'newest',
    meme: meme && MEME_ID.test(meme) ? meme : null,
  }
}

/**
 * The page's own URL for a state.
 * @param {PageState} state
 */
export function stateUrl(state) {
  const params = new URLSearchParams()
  if (state.order === 'trending') params.set('order', 'trending')
  if (state.q.trim()) params.set('q', state.q)
  for (const tag of state.tags) params.append('tag', tag)
  if (state.page > 1) params.set('page', String(state.page))
  if (state.meme) params.set('meme', state.meme)
  const search = params.toString()
  return search ? `/?${search}` : '/'
}

/**
 * @param {PageState} state
 * @param {{ replace?: boolean, viewer?: boolean }} [options] `viewer`: this entry opened the viewer
 */
export function writeState(state, { replace = false, viewer = false } = {}) {
  const url = stateUrl(state)
  if (url === location.pathname + location.search) return
  if (replace) history.replaceState({ viewer: Boolean(history.state?.viewer) }, '', url)
  else history.pushState({ viewer }, '', url)
}

/**
 * The list API URL for a state.
 * @param {PageState} state
 * @param {number} pageSize
 */
export function listUrl(state, pageSize) {
  const params = new URLSearchParams({ page: String(state.page), pageSize: String(pageSize) })
  if (state.order === 'trending' && !state.q.trim()) {
    for (const tag of state.tags) params.append('tag', tag)
    return `/api/memes/trending?${params}`
  }
  if (state.q.trim()) params.set('q', state.q.trim())
  for (const tag of state.tags) params.append('tag', tag)
  // What matched is marked on the cards.
  if (state.q.trim() || state.tags.length > 0) params.set('highlight', 'true')
  return `/api/memes?${params}`
}
