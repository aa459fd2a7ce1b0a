// The meme view: a modal dialog with the image, caption, tags (each a filter), size, dates and a download link.
import { altText, errorMessage, request } from './api.js'
import { byId, h } from './dom.js'
import { formatBytes, formatDate } from './format.js'

/** @typedef {import('./api.js').Meme} Meme */

/**
 * @param {{ onTag: (tag: string) => void, onClose: () => void }} handlers
 */
export function createViewer({ onTag, onClose }) {
  /** @type {HTMLDialogElement} */
  const dialog = byId('viewer')
  const title = byId('viewer-title')
  const body = byId('viewer-body')
  /** @type {AbortController | undefined} */
  let pending

  byId('viewer-close').addEventListener('click', () => dialog.close())
  // A click on the backdrop (outside the dialog box) closes it too.
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) dialog.close()
  })
  dialog.addEventListener('close', () => {
    pending?.abort()
    onClose()
  })

  /** @param {Meme} meme */
  function render(meme) {
    const caption = meme.caption.trim()
    title.textContent = caption ? 'Meme' : 'Meme (not captioned yet)'
    const tagButtons = meme.tags.map((tag) =>
      h(
        'li',
        {},
        h('button', { type: 'button', class: 'chip', text: tag, onclick: () => onTag(tag), title: `Show memes tagged ${tag}` }),
      ),
    )
    body.replaceChildren(
      ...[
        h('img', { src: `/media/${meme.id}`, alt: altText(meme), width: String(meme.width), height: String(meme.height) }),
        h('p', { class: 'caption', text: caption || 'No caption yet: the server is still reading this image.' }),
        tagButtons.length
          ? h('ul', { class: 'chips', 'aria-label': 'Tags (select one to filter the gallery)' }, ...tagButtons)
          : null,
        h(
          'dl',
          { class: 'facts' },
          h('dt', { text: 'Size' }),
          h('dd', { text: `${meme.width} × ${meme.height} px, ${formatBytes(meme.byteSize)} (WebP)` }),
          h('dt', { text: 'Added' }),
          h('dd', {}, h('time', { datetime: meme.createdAt, text: formatDate(meme.createdAt) })),
          h('dt', { text: 'Views' }),
          h('dd', { text: `${meme.viewCount} views, ${meme.downloadCount} downloads` }),
        ),
        h('p', {}, h('a', { href: meme.downloadUrl, download: '', class: 'download', text: 'Download image' })),
      ].filter((node) => node !== null),
    )
  }

  return {
    /** @param {string} id */
    async open(id) {
      pending?.abort()
      pending = new AbortController()
      title.textContent = 'Meme'
      body.replaceChildren(h('p', { class: 'hint', text: 'Loading…' }))
      if (!dialog.open) dialog.showModal()
      try {
        const result = await request(`/api/memes/${encodeURIComponent(id)}`, { signal: pending.signal })
        if (result.status === 200 && result.body?.meme) render(result.body.meme)
        else if (result.status === 404) body.replaceChildren(h('p', { text: 'This meme does not exist or is not public.' }))
        else body.replaceChildren(h('p', { class: 'error', text: errorMessage(result) }))
      } catch {
        // aborted: a newer open() or close() took over
      }
    },
    close() {
      if (dialog.open) dialog.close()
    },
    get isOpen() {
      return dialog.open
    },
  }
}
