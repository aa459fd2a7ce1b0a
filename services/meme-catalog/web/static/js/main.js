// The public page: gallery, search as you type, tag filters, meme viewer and upload form, with state in the URL.
import { errorMessage, request } from './api.js'
import { byId, debounce, h } from './dom.js'
import { initFindByImage } from './find-image.js'
import { renderGallery } from './gallery.js'
import { listUrl, readState, writeState } from './state.js'
import { initSuggest } from './suggest.js'
import { initUpload } from './upload.js'
import { createViewer } from './viewer.js'

const PAGE_SIZE = 24

let state = readState()
/** @type {AbortController | undefined} */
let listing
/** @type {string[]} */
let catalog = []
/** @type {ReturnType<typeof setTimeout> | undefined} */
let retry

/** @type {HTMLInputElement} */
const search = byId('q')
const chips = byId('tag-chips')
const els = {
  grid: byId('grid'),
  status: byId('gallery-status'),
  pageInfo: byId('page-info'),
  /** @type {HTMLButtonElement} */
  prev: byId('prev-page'),
  /** @type {HTMLButtonElement} */
  next: byId('next-page'),
}

const viewer = createViewer({
  onTag(tag) {
    state = { q: '', tags: [tag], page: 1, order: state.order, meme: null }
    writeState(state)
    viewer.close()
    syncControls()
    loadGallery()
  },
  onClose() {
    if (!state.meme) return
    state = { ...state, meme: null }
    // Closing a viewer the gallery opened steps back; one opened from a shared link just drops the parameter.
    if (history.state?.viewer) history.back()
    else writeState(state, { replace: true })
  },
})

async function loadGallery() {
  clearTimeout(retry)
  listing?.abort()
  listing = new AbortController()
  els.grid.setAttribute('aria-busy', 'true')
  try {
    const result = await request(listUrl(state, PAGE_SIZE), { signal: listing.signal })
    if (result.status === 200 && result.body) {
      // The server clamps a page beyond the last one: show which page was served.
      if (result.body.page !== state.page && !state.meme) {
        state = { ...state, page: result.body.page }
        writeState(state, { replace: true })
      }
      renderGallery(els, state, result.body)
    } else if (result.status === 503) {
      // The server is still building its search index: ask again when it says so.
      const seconds = Math.min(10, Math.max(1, Number.parseInt(result.header('Retry-After') ?? '2', 10) || 2))
      els.status.textContent = `${errorMessage(result)} Retrying in ${seconds} s…`
      retry = setTimeout(loadGallery, seconds * 1000)
    } else {
      els.status.textContent = errorMessage(result)
      els.grid.replaceChildren()
    }
    els.grid.setAttribute('aria-busy', 'false')
  } catch {
    // aborted by a newer search
  }
}

function renderChips() {
  const names = [...new Set([...catalog, ...state.tags])].sort()
  if (names.length === 0) {
    chips.replaceChildren(h('span', { class: 'hint', text: 'No tags yet.' }))
    return
  }
  chips.replaceChildren(
    ...names.map((name) =>
      h('button', {
        type: 'button',
        class: 'chip',
        text: name,
        'aria-pressed': String(state.tags.includes(name)),
        'data-tag': name,
      }),
    ),
  )
}

function syncControls() {
  if (search.value !== state.q) search.value = state.q
  renderChips()
  renderTabs()
}

async function loadTags() {
  const result = await request('/api/tags')
  if (result.status === 200 && Array.isArray(result.body?.tags)) catalog = result.body.tags
  else chips.replaceChildren(h('span', { class: 'error', text: `Tags unavailable: ${errorMessage(result)}` }))
  if (result.status === 200) renderChips()
}

const tabs = /** @type {HTMLButtonElement[]} */ ([...byId('order-tabs').querySelectorAll('[role="tab"]')])

/** The tab of the current order: selected, and the one Tab reaches (roving tabindex). */
function renderTabs() {
  // A search lists by relevance: the newest tab stands for it.
  const order = state.q.trim() ? 'newest' : state.order
  for (const tab of tabs) {
    const selected = tab.dataset.order === order
    tab.setAttribute('aria-selected', String(selected))
    tab.tabIndex = selected ? 0 : -1
  }
}

/** @param {HTMLButtonElement} tab */
function selectTab(tab) {
  const order = tab.dataset.order === 'trending' ? 'trending' : 'newest'
  // Trending lists without a search: choosing it clears the search text (tag filters stay).
  state = { ...state, order, q: order === 'trending' ? '' : state.q, page: 1, meme: null }
  writeState(state)
  syncControls()
  loadGallery()
}

byId('order-tabs').addEventListener('click', (event) => {
  const tab = /** @type {HTMLElement} */ (event.target).closest('[role="tab"]')
  if (tab instanceof HTMLButtonElement) selectTab(tab)
})
// Arrow keys, Home and End move between the tabs and select (the WAI-ARIA tabs pattern, automatic activation).
byId('order-tabs').addEventListener('keydown', (event) => {
  const at = tabs.indexOf(/** @type {HTMLButtonElement} */ (event.target))
  if (at < 0) return
  const keys = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }
  if (!(event.key in keys)) return
  event.preventDefault()
  const next = tabs[(keys[/** @type {keyof typeof keys} */ (event.key)] + tabs.length) % tabs.length]
  next.focus()
  selectTab(next)
})

const searchAsYouType = debounce(() => {
  state = { ...state, q: search.value.slice(0, 200), page: 1, meme: null }
  renderTabs()
  writeState(state, { replace: true })
  loadGallery()
}, 250)

search.addEventListener('input', searchAsYouType)
initSuggest(search, byId('q-suggestions'), {
  onChoose(suggestion) {
    // A word replaces the one being typed; a tag (an alias as its catalog tag) becomes a filter and the typed word goes.
    const q = suggestion.kind === 'word' ? suggestion.query : suggestion.query.slice(0, -suggestion.value.length).trimEnd()
    const tag = suggestion.aliasOf ?? suggestion.value
    const tags = suggestion.kind === 'tag' && !state.tags.includes(tag) ? [...state.tags, tag] : state.tags
    state = { ...state, q, tags, page: 1, meme: null }
    writeState(state)
    syncControls()
    loadGallery()
  },
})
byId('search-form').addEventListener('submit', (event) => {
  event.preventDefault()
  state = { ...state, q: search.value.slice(0, 200), page: 1, meme: null }
  writeState(state)
  loadGallery()
})

chips.addEventListener('click', (event) => {
  const button = /** @type {HTMLElement} */ (event.target).closest('button[data-tag]')
  if (!(button instanceof HTMLButtonElement)) return
  const tag = button.dataset.tag ?? ''
  const tags = state.tags.includes(tag) ? state.tags.filter((t) => t !== tag) : [...state.tags, tag]
  state = { ...state, tags, page: 1, meme: null }
  writeState(state)
  renderChips()
  loadGallery()
})

/** @param {number} delta */
function turnPage(delta) {
  state = { ...state, page: Math.max(1, state.page + delta), meme: null }
  writeState(state)
  loadGallery()
  byId('gallery').focus()
}
els.prev.addEventListener('click', () => turnPage(-1))
els.next.addEventListener('click', () => turnPage(1))

// Links to a meme (gallery cards, the upload answer) open the viewer in place; the URL stays shareable.
document.addEventListener('click', (event) => {
  const mouse = /** @type {MouseEvent} */ (event)
  if (mouse.button !== 0 || mouse.ctrlKey || mouse.metaKey || mouse.shiftKey || mouse.altKey) return
  const link = /** @type {HTMLElement} */ (event.target).closest('a[data-meme]')
  if (!(link instanceof HTMLAnchorElement)) return
  event.preventDefault()
  state = { ...state, meme: link.dataset.meme ?? null }
  writeState(state, { viewer: true })
  if (state.meme) viewer.open(state.meme, state.q)
})

window.addEventListener('popstate', () => {
  const previous = state
  state = readState()
  syncControls()
  if (state.meme) viewer.open(state.meme, state.q)
  else viewer.close()
  if (
    previous.q !== state.q ||
    previous.page !== state.page ||
    previous.order !== state.order ||
    previous.tags.join('\n') !== state.tags.join('\n')
  ) {
    loadGallery()
  }
})

initUpload({ onApproved: () => loadGallery() })
initFindByImage()
syncControls()
loadTags()
loadGallery()
if (state.meme) viewer.open(state.meme, state.q)
