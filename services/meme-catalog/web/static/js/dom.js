// DOM helpers. Data is only ever placed with textContent, attributes or properties: never parsed as HTML.

/**
 * Creates an element. `props` keys: `class`, `text`, `on<event>` handlers, `aria-*`/`data-*`/other attributes
 * (strings), and `hidden`/`disabled`/... booleans.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    if (key === 'class') el.className = String(value)
    else if (key === 'text') el.textContent = String(value)
    else if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), /** @type {EventListener} */ (value))
    } else if (value === true) el.setAttribute(key, '')
    else el.setAttribute(key, String(value))
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    el.append(child)
  }
  return el
}

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @returns {T}
 */
export function byId(id) {
  const el = document.getElementById(id)
  if (!el) throw new Error(`#${id} is missing from the page`)
  return /** @type {T} */ (el)
}

/**
 * Delays calls until `ms` passed without another call.
 * @template {unknown[]} A
 * @param {(...args: A) => void} fn
 * @param {number} ms
 */
export function debounce(fn, ms) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer
  return (/** @type {A} */ ...args) => {
    clearTimeout(timer)
    timer = setTimeout(() => fn(...args), ms)
  }
}

/**
 * Lets `zone` take one dropped file, highlighted (class "dragging") while a drag is over it.
 * @param {HTMLElement} zone
 * @param {{ onFile: (file: File) => void, onMany: () => void }} handlers onMany: more than one file was dropped
 */
export function acceptDrop(zone, { onFile, onMany }) {
  for (const type of ['dragenter', 'dragover']) {
    zone.addEventListener(type, (event) => {
      event.preventDefault()
      zone.classList.add('dragging')
    })
  }
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'))
  zone.addEventListener('drop', (event) => {
    event.preventDefault()
    zone.classList.remove('dragging')
    const files = event.dataTransfer?.files
    if (!files || files.length === 0) return
    if (files.length > 1) onMany()
    else onFile(files[0])
  })
}
