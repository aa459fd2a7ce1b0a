// The upload form: picker or drag-and-drop, the server's own limits checked first, progress, and the answer in words.
import { acceptDrop, byId, h } from './dom.js'
import { formatBytes, retryHint } from './format.js'

/** The server's limits (spec: PNG or JPEG, at most 5 MB). */
export const MAX_BYTES = 5 * 1024 * 1024
const TYPES = new Set(['image/png', 'image/jpeg'])
const EXTENSION = /\.(png|jpe?g)$/i

/**
 * Why a file cannot be sent, or null. The server also sniffs the bytes; here only what the browser reports is known.
 * @param {File} file
 */
export function precheck(file) {
  const typeOk = file.type ? TYPES.has(file.type) : EXTENSION.test(file.name)
  if (!typeOk) return `Only PNG and JPEG images can be uploaded; “${file.name}” is ${file.type || 'of an unknown type'}.`
  if (file.size === 0) return `“${file.name}” is empty.`
  if (file.size > MAX_BYTES) {
    const size = file.size.toLocaleString('en')
    return `“${file.name}” is larger than the 5 MB limit (${size} bytes, at most ${MAX_BYTES.toLocaleString('en')}). Choose a smaller image.`
  }
  return null
}

/** @param {{ remainingHour: number, remainingDay: number }} quota */
const quotaLine = (quota) =>
  h('p', { class: 'quota', text: `Uploads left for you: ${quota.remainingHour} this hour, ${quota.remainingDay} today.` })

/**
 * @param {{ onApproved: (id: string) => void }} handlers
 */
export function initUpload({ onApproved }) {
  /** @type {HTMLFormElement} */
  const form = byId('upload-form')
  /** @type {HTMLInputElement} */
  const input = byId('file-input')
  const zone = byId('drop-zone')
  const info = byId('file-info')
  /** @type {HTMLButtonElement} */
  const button = byId('upload-button')
  /** @type {HTMLProgressElement} */
  const progress = byId('upload-progress')
  const result = byId('upload-result')
  /** @type {File | null} */
  let file = null
  let busy = false

  /**
   * @param {'ok' | 'warn' | 'bad'} tone
   * @param {string} headline
   * @param {...(Node | null)} details
   */
  function show(tone, headline, ...details) {
    result.className = `result ${tone}`
    result.replaceChildren(h('p', {}, h('strong', { text: headline })), ...details.filter((d) => d !== null))
  }

  /** @param {File | null} chosen */
  function choose(chosen) {
    file = null
    button.disabled = true
    result.replaceChildren()
    result.className = 'result'
    if (!chosen) {
      info.textContent = ''
      return
    }
    info.textContent = `${chosen.name} (${formatBytes(chosen.size)})`
    const problem = precheck(chosen)
    if (problem) {
      show('bad', 'This file cannot be uploaded.', h('p', { class: 'error', text: problem }))
      return
    }
    file = chosen
    button.disabled = busy
  }

  input.addEventListener('change', () => choose(input.files?.[0] ?? null))
  acceptDrop(zone, {
    onFile: choose,
    onMany: () => {
      choose(null)
      show('bad', 'Drop one image at a time.')
    },
  })

  /**
   * @param {XMLHttpRequest} xhr
   * @param {any} body
   */
  function answer(xhr, body) {
    const status = xhr.status
    const message = body && typeof body.error === 'string' ? body.error : null
    if ((status === 201 || status === 202) && body?.meme) {
      const link = h('a', { href: `/?meme=${body.meme.id}`, 'data-meme': body.meme.id, text: 'View your meme' })
      const reason = h('p', { class: 'hint', text: `Moderation: ${body.moderationReason} (score ${body.moderationScore}/100).` })
      if (status === 201) {
        show('ok', body.message || 'Upload approved.', h('p', {}, link), reason, quotaLine(body.quota))
        onApproved(body.meme.id)
      } else {
        show(
          'warn',
          body.message || 'Upload queued for admin review.',
          h('p', { text: 'It will appear in the gallery once an admin approves it.' }),
          reason,
          quotaLine(body.quota),
        )
      }
    } else if (status === 422 && body) {
      show(
        'bad',
        'Rejected by moderation.',
        h('p', { text: message ?? 'The image was rejected.' }),
        h('p', { text: `Reason: ${body.moderationReason} (score ${body.moderationScore}/100).` }),
      )
    } else if (status === 429) {
      const header = (/** @type {string} */ name) => xhr.getResponseHeader(name)
      show('bad', message ?? 'Too many uploads.', h('p', { text: retryHint(header) }))
    } else if (status === 0) {
      show('bad', 'The upload did not reach the server.', h('p', { text: 'Check your connection and try again.' }))
    } else {
      show('bad', message ?? `The server answered ${status}.`)
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (!file || busy) return
    const problem = precheck(file)
    if (problem) {
      show('bad', 'This file cannot be uploaded.', h('p', { class: 'error', text: problem }))
      return
    }
    busy = true
    button.disabled = true
    progress.hidden = false
    progress.value = 0
    result.replaceChildren()
    result.className = 'result'
    const data = new FormData()
    data.append('meme', file, file.name)
    // XMLHttpRequest, not fetch: only it reports upload progress.
    const xhr = new XMLHttpRequest()
    xhr.open('POST', '/api/memes')
    xhr.setRequestHeader('Accept', 'application/json')
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) progress.value = Math.round((e.loaded / e.total) * 100)
    })
    xhr.addEventListener('loadend', () => {
      busy = false
      progress.hidden = true
      let body = null
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null
      } catch {
        body = null
      }
      if (xhr.status === 201 || xhr.status === 202) {
        // Sent and stored: clear the picker so the same file is not sent twice by accident.
        form.reset()
        file = null
        info.textContent = ''
      }
      answer(xhr, body)
      button.disabled = !file
    })
    xhr.send(data)
  })
}
