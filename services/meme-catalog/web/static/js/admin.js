// The admin review page: sign in with the token, review the queue, edit captions and tags, manage the tag catalog.
import { adminImage, adminRequest, catalogTags, nearDuplicates, token } from './admin-api.js'
import { altText, errorMessage } from './api.js'
import { byId, h } from './dom.js'
import { formatBytes, formatDate } from './format.js'
import { createTriage } from './triage.js'

/** @typedef {import('./api.js').ApiResult} ApiResult */

const PAGE_SIZE = 12
const status = byId('admin-status')
const login = byId('login')
const workspace = byId('workspace')
const queue = byId('queue')
/** @type {HTMLSelectElement} */
const statusFilter = byId('status-filter')
/** @type {string[]} */
let catalog = []
let page = 1
/** @type {string[]} */
let objectUrls = []

/** @param {string} text @param {boolean} [error] */
function say(text, error = false) {
  status.textContent = text
  status.className = error ? 'status error' : 'status'
}

/** @param {string} [why] */
function signOut(why) {
  token.clear()
  workspace.hidden = true
  login.hidden = false
  byId('sign-out').hidden = true
  if (why) say(why, true)
  byId('token').focus()
}

/**
 * Handles the answers every admin call shares; true when the caller may go on.
 * @param {ApiResult} result
 */
function usable(result) {
  if (result.status === 401) {
    signOut('The admin token was not accepted. Enter it again.')
    return false
  }
  if (result.status < 200 || result.status >= 300) {
    say(errorMessage(result), true)
    return false
  }
  return true
}

/**
 * @param {string} id
 * @param {string} alt
 */
function image(id, alt) {
  const img = h('img', { alt, width: '320', height: '320', decoding: 'async' })
  adminImage(id).then((url) => {
    if (url) {
      objectUrls.push(url)
      img.src = url
    } else img.alt = `${alt} (image unavailable)`
  })
  return img
}

/** @param {any} meme */
function reviewItem(meme) {
  const caption = h('textarea', { id: `caption-${meme.id}`, maxlength: '2000' })
  caption.value = meme.caption ?? ''
  const tagBoxes = [...new Set([...catalog, ...(meme.tags ?? [])])].sort().map((name) => {
    const box = h('input', { type: 'checkbox', value: name, id: `tag-${meme.id}-${name}` })
    box.checked = (meme.tags ?? []).includes(name)
    return h('label', { for: box.id }, box, ` ${name}`)
  })
  const duplicates = nearDuplicates(meme)
  const item = h(
    'li',
    { class: 'review', 'data-id': meme.id },
    h(
      'div',
      {},
      duplicates.length
        ? h(
            'div',
            { class: 'duplicates' },
            h('h3', {
              text: `Possible near-duplicate of ${duplicates.length === 1 ? 'an existing meme' : `${duplicates.length} memes`}`,
            }),
            ...duplicates.map((other) =>
              h(
                'div',
                { class: 'side-by-side' },
                h('figure', {}, image(meme.id, `This upload: ${altText(meme)}`), h('figcaption', { text: 'This upload' })),
                h('figure', {}, image(other, 'The existing meme'), h('figcaption', { text: `Existing ${other.slice(0, 12)}…` })),
              ),
            ),
          )
        : image(meme.id, altText(meme)),
      h(
        'dl',
        { class: 'facts' },
        h('dt', { text: 'Moderation' }),
        h('dd', { text: `${meme.moderationScore}/100: ${meme.moderationReason}` }),
        h('dt', { text: 'File' }),
        h('dd', {
          text: `${meme.originalName} (${meme.originalMime}), ${meme.width} × ${meme.height} px, ${formatBytes(meme.byteSize)}`,
        }),
        h('dt', { text: 'Uploaded' }),
        h('dd', { text: formatDate(meme.createdAt) }),
        h('dt', { text: 'Status' }),
        h('dd', { text: meme.status }),
        h('dt', { text: 'Captioning' }),
        h('dd', { text: meme.captionJob ? `${meme.captionJob.state} (attempts: ${meme.captionJob.attempts})` : 'not queued' }),
      ),
    ),
    h(
      'form',
      { class: 'edit' },
      h('label', { for: caption.id, text: 'Caption' }),
      caption,
      h(
        'fieldset',
        {},
        h('legend', { text: 'Tags' }),
        tagBoxes.length
          ? h('div', { class: 'tag-picks' }, ...tagBoxes)
          : h('p', { class: 'hint', text: 'The tag catalog is empty: add tags below.' }),
      ),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', text: 'Save caption and tags' }),
        h('button', { type: 'button', 'data-action': 'recaption', text: 'Caption again' }),
        meme.status !== 'approved' ? h('button', { type: 'button', 'data-action': 'approve', text: 'Approve' }) : null,
        meme.status !== 'rejected'
          ? h('button', { type: 'button', class: 'danger', 'data-action': 'reject', text: 'Reject' })
          : null,
      ),
    ),
  )
  const form = /** @type {HTMLFormElement} */ (item.querySelector('form'))
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const tags = [...form.querySelectorAll('input[type="checkbox"]:checked')].map(
      (b) => /** @type {HTMLInputElement} */ (b).value,
    )
    const result = await adminRequest(`/api/admin/memes/${meme.id}`, { method: 'PATCH', json: { caption: caption.value, tags } })
    if (usable(result)) say(`Saved the caption and tags of ${meme.originalName}.`)
  })
  for (const button of item.querySelectorAll('button[data-action]')) {
    button.addEventListener('click', async () => {
      const action = /** @type {HTMLElement} */ (button).dataset.action
      const result = await adminRequest(`/api/admin/memes/${meme.id}/${action}`, { method: 'POST' })
      if (!usable(result)) return
      const done = { approve: 'Approved', reject: 'Rejected', recaption: 'Queued a new caption job for' }
      say(`${done[/** @type {keyof typeof done} */ (action)]} ${meme.originalName}.`)
      await loadQueue()
      await triage.load()
    })
  }
  return item
}

async function loadQueue() {
  const params = new URLSearchParams({ status: statusFilter.value, page: String(page), pageSize: String(PAGE_SIZE) })
  const result = await adminRequest(`/api/admin/memes?${params}`)
  if (!usable(result)) return
  for (const url of objectUrls) URL.revokeObjectURL(url)
  objectUrls = []
  const memes = Array.isArray(result.body?.memes) ? result.body.memes : []
  const total = result.body?.total ?? memes.length
  const totalPages = Math.max(1, result.body?.totalPages ?? 1)
  page = Math.min(result.body?.page ?? page, totalPages)
  queue.replaceChildren(...memes.map(reviewItem))
  byId('queue-info').textContent =
    total === 0 ? `No ${statusFilter.value} memes.` : `${total} ${statusFilter.value} ${total === 1 ? 'meme' : 'memes'}.`
  byId('queue-page').textContent = `Page ${page} of ${totalPages}`
  /** @type {HTMLButtonElement} */
  const prev = byId('queue-prev')
  /** @type {HTMLButtonElement} */
  const next = byId('queue-next')
  prev.disabled = page <= 1
  next.disabled = page >= totalPages
}

async function loadCatalog() {
  const result = await adminRequest('/api/admin/tags')
  // Without a configured token the whole admin API answers 404.
  if (result.status === 404) {
    say('The admin API is not enabled on this server (no ADMIN_TOKEN is configured).', true)
    return false
  }
  if (!usable(result)) return false
  const tags = catalogTags(result.body).sort((a, b) => a.name.localeCompare(b.name))
  catalog = tags.map((t) => t.name)
  const list = byId('tag-catalog')
  if (tags.length === 0) list.replaceChildren(h('li', { class: 'hint', text: 'No tags yet.' }))
  else
    list.replaceChildren(
      ...tags.map(({ name, memeCount, aliases }) =>
        h(
          'li',
          { class: 'chip', 'data-tag': name },
          memeCount === null ? `${name} ` : `${name} (${memeCount}) `,
          h('button', { type: 'button', class: 'danger', 'data-remove': name, 'aria-label': `Remove tag ${name}`, text: '×' }),
          ...aliases.map((alias) =>
            h(
              'span',
              { class: 'alias', 'data-alias': alias },
              ` aka ${alias} `,
              h('button', {
                type: 'button',
                class: 'danger',
                'data-remove-alias': alias,
                'data-of': name,
                'aria-label': `Remove alias ${alias} of ${name}`,
                text: '×',
              }),
            ),
          ),
        ),
      ),
    )
  /** @type {HTMLSelectElement} */
  const aliasTag = byId('alias-tag')
  const chosen = aliasTag.value
  aliasTag.replaceChildren(...tags.map(({ name }) => h('option', { value: name, text: name })))
  if (catalog.includes(chosen)) aliasTag.value = chosen
  return true
}

const triage = createTriage({ usable, say, image, changed: () => loadQueue() })

async function start() {
  login.hidden = true
  byId('sign-out').hidden = false
  if (!(await loadCatalog())) return
  workspace.hidden = false
  await Promise.all([triage.load(), loadQueue()])
}

byId('login-form').addEventListener('submit', (event) => {
  event.preventDefault()
  /** @type {HTMLInputElement} */
  const input = byId('token')
  token.set(input.value.trim())
  input.value = ''
  say('')
  start()
})
byId('sign-out').addEventListener('click', () => signOut('Signed out: the token was removed from this tab.'))
statusFilter.addEventListener('change', () => {
  page = 1
  loadQueue()
})
byId('reload').addEventListener('click', () => loadQueue())
byId('queue-prev').addEventListener('click', () => {
  page = Math.max(1, page - 1)
  loadQueue()
})
byId('queue-next').addEventListener('click', () => {
  page += 1
  loadQueue()
})

byId('tag-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  /** @type {HTMLInputElement} */
  const input = byId('new-tag')
  const name = input.value.trim().toLowerCase()
  if (!name) return
  const result = await adminRequest('/api/admin/tags', { method: 'POST', json: { name } })
  if (!usable(result)) return
  input.value = ''
  // Reload first so the status line never announces a change the lists do not show yet.
  await loadCatalog()
  await loadQueue()
  await triage.load()
  say(`Added the tag “${name}”.`)
})
byId('alias-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  /** @type {HTMLInputElement} */
  const input = byId('new-alias')
  /** @type {HTMLSelectElement} */
  const tagSelect = byId('alias-tag')
  const alias = input.value.trim().toLowerCase()
  const tag = tagSelect.value
  if (!alias || !tag) return
  const result = await adminRequest(`/api/admin/tags/${encodeURIComponent(tag)}/aliases`, { method: 'POST', json: { alias } })
  if (!usable(result)) return
  input.value = ''
  await loadCatalog()
  say(`Added the alias “${alias}” of “${tag}”.`)
})
byId('tag-catalog').addEventListener('click', async (event) => {
  const aliasButton = /** @type {HTMLElement} */ (event.target).closest('button[data-remove-alias]')
  if (aliasButton instanceof HTMLButtonElement) {
    const alias = aliasButton.dataset.removeAlias ?? ''
    const tag = aliasButton.dataset.of ?? ''
    const path = `/api/admin/tags/${encodeURIComponent(tag)}/aliases/${encodeURIComponent(alias)}`
    if (!usable(await adminRequest(path, { method: 'DELETE' }))) return
    await loadCatalog()
    say(`Removed the alias “${alias}” of “${tag}”.`)
    return
  }
  const button = /** @type {HTMLElement} */ (event.target).closest('button[data-remove]')
  if (!(button instanceof HTMLButtonElement)) return
  const name = button.dataset.remove ?? ''
  if (!confirm(`Remove the tag “${name}” from the catalog and from every meme?`)) return
  const result = await adminRequest(`/api/admin/tags/${encodeURIComponent(name)}`, { method: 'DELETE' })
  if (!usable(result)) return
  await loadCatalog()
  await loadQueue()
  say(`Removed the tag “${name}”.`)
})

if (token.get()) start()
else byId('token').focus()
