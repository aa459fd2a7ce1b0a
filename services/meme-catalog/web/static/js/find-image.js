// "Find by image": a picked or dropped picture is sent to POST /api/memes/similar; the look-alikes show with their distance.
import { altText, errorMessage, request } from './api.js'
import { acceptDrop, byId, h } from './dom.js'
import { precheck } from './upload.js'

/** @typedef {import('./api.js').Meme} Meme */

export function initFindByImage() {
  /** @type {HTMLFormElement} */
  const form = byId('find-form')
  /** @type {HTMLInputElement} */
  const input = byId('find-input')
  const zone = byId('find-drop')
  const status = byId('find-status')
  const results = byId('find-results')
  /** @type {HTMLButtonElement} */
  const button = byId('find-button')
  /** @type {AbortController | undefined} */
  let running

  /** @param {string} text @param {boolean} [error] */
  function say(text, error = false) {
    status.textContent = text
    status.className = error ? 'status error' : 'status'
  }

  /** @param {File} file */
  async function find(file) {
    const problem = precheck(file)
    results.replaceChildren()
    if (problem) {
      say(problem, true)
      return
    }
    running?.abort()
    running = new AbortController()
    say(`Looking for memes that look like “${file.name}”…`)
    const data = new FormData()
    data.append('meme', file, file.name)
    let result
    try {
      result = await request('/api/memes/similar', { method: 'POST', body: data, signal: running.signal })
    } catch {
      return // a newer image replaced this one
    }
    if (result.status !== 200 || !Array.isArray(result.body?.matches)) {
      say(errorMessage(result), true)
      return
    }
    /** @type {{ distance: number, meme: Meme }[]} */
    const matches = result.body.matches
    say(
      matches.length === 0
        ? `No meme looks like “${file.name}”.`
        : `${matches.length} ${matches.length === 1 ? 'meme looks' : 'memes look'} like “${file.name}”, closest first.`,
    )
    results.replaceChildren(
      ...matches.map(({ distance, meme }) =>
        h(
          'li',
          {},
          h(
            'a',
            { class: 'card', href: `/?meme=${meme.id}`, 'data-meme': meme.id },
            h('img', { src: meme.url, alt: altText(meme), width: String(meme.width), height: String(meme.height) }),
            h('span', {
              class: 'distance',
              text: distance === 0 ? 'same picture' : `${distance} bit${distance === 1 ? '' : 's'} apart`,
            }),
          ),
        ),
      ),
    )
  }

  input.addEventListener('change', () => {
    button.disabled = !input.files?.length
  })
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const file = input.files?.[0]
    if (file) find(file)
  })
  acceptDrop(zone, {
    onFile: find,
    onMany: () => say('Drop one image at a time.', true),
  })
}
