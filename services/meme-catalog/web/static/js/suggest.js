// Autocomplete for the search box: an ARIA combobox (WAI-ARIA 1.2 pattern, list autocomplete) over
// GET /api/memes/suggest. Focus stays in the input; the active option is named by aria-activedescendant.
import { request } from './api.js'
import { debounce, h } from './dom.js'

/**
 * @typedef {object} Suggestion
 * @property {string} value
 * @property {'word' | 'tag'} kind
 * @property {number} count
 * @property {string} [aliasOf] for a tag alias (value): the catalog tag it stands for
 * @property {string} query the typed text with its last word replaced by value
 */

/**
 * @param {HTMLInputElement} input
 * @param {HTMLElement} listbox
 * @param {{ onChoose: (suggestion: Suggestion) => void }} handlers
 */
export function initSuggest(input, listbox, { onChoose }) {
  /** @type {Suggestion[]} */
  let suggestions = []
  let active = -1
  /** @type {AbortController | undefined} */
  let pending

  const optionId = (/** @type {number} */ i) => `${listbox.id}-option-${i}`

  function close() {
    pending?.abort()
    suggestions = []
    active = -1
    listbox.replaceChildren()
    listbox.hidden = true
    input.setAttribute('aria-expanded', 'false')
    input.removeAttribute('aria-activedescendant')
  }

  /** @param {number} index */
  function activate(index) {
    active = index
    for (const [i, option] of [...listbox.children].entries()) option.setAttribute('aria-selected', String(i === index))
    if (index < 0) input.removeAttribute('aria-activedescendant')
    else {
      input.setAttribute('aria-activedescendant', optionId(index))
      listbox.children[index]?.scrollIntoView({ block: 'nearest' })
    }
  }

  /** @param {Suggestion[]} list */
  function show(list) {
    suggestions = list
    active = -1
    input.removeAttribute('aria-activedescendant')
    if (list.length === 0) return close()
    listbox.replaceChildren(
      ...list.map((s, i) =>
        h(
          'div',
          { id: optionId(i), role: 'option', 'aria-selected': 'false', class: `suggestion ${s.kind}`, 'data-index': String(i) },
          h('span', { class: 'value', text: s.value }),
          s.aliasOf ? h('span', { class: 'alias-of', text: `→ ${s.aliasOf}` }) : null,
          s.kind === 'tag' ? h('span', { class: 'kind', text: 'tag' }) : null,
          h('span', { class: 'count', text: `${s.count} ${s.count === 1 ? 'meme' : 'memes'}` }),
        ),
      ),
    )
    listbox.hidden = false
    input.setAttribute('aria-expanded', 'true')
  }

  /** @param {number} index */
  function choose(index) {
    const suggestion = suggestions[index]
    close()
    if (suggestion) onChoose(suggestion)
  }

  const fetchSuggestions = debounce(async () => {
    const q = input.value.slice(0, 200)
    if (q.trim() === '' || document.activeElement !== input) return close()
    pending?.abort()
    pending = new AbortController()
    try {
      const result = await request(`/api/memes/suggest?${new URLSearchParams({ q })}`, { signal: pending.signal })
      // A newer keystroke may have changed the text meanwhile: show only what answers the current one.
      if (input.value.slice(0, 200) !== q) return
      show(result.status === 200 && Array.isArray(result.body?.suggestions) ? result.body.suggestions : [])
    } catch {
      // aborted by a newer keystroke
    }
  }, 120)

  input.addEventListener('input', fetchSuggestions)
  input.addEventListener('keydown', (event) => {
    const open = !listbox.hidden && suggestions.length > 0
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (!open) {
        if (event.key === 'ArrowDown') fetchSuggestions()
        return
      }
      event.preventDefault()
      const n = suggestions.length
      activate(event.key === 'ArrowDown' ? (active + 1) % n : active <= 0 ? n - 1 : active - 1)
    } else if (event.key === 'Enter' && open && active >= 0) {
      // Enter on an option takes it instead of submitting the typed text.
      event.preventDefault()
      choose(active)
    } else if (event.key === 'Escape' && open) {
      // The first Escape closes the list; a second one clears the search field as a search input does.
      event.preventDefault()
      close()
    }
  })
  input.addEventListener('blur', () => close())
  // mousedown, not click: the input would lose focus (and close the list) before a click arrives.
  listbox.addEventListener('mousedown', (event) => {
    const option = /** @type {HTMLElement} */ (event.target).closest('[role="option"]')
    if (!(option instanceof HTMLElement)) return
    event.preventDefault()
    choose(Number(option.dataset.index))
  })
  close()
}
