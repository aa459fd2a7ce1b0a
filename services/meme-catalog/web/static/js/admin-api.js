// The admin API client: the token stays in sessionStorage (this tab only) and travels as a Bearer header.
import { request } from './api.js'

const TOKEN_KEY = 'meme-catalog.admin-token'

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  /** @param {string} value */
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
}

/**
 * @param {string} path
 * @param {{ method?: string, json?: unknown }} [options]
 */
export function adminRequest(path, { method = 'GET', json } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Authorization: `Bearer ${token.get() ?? ''}` }
  if (json !== undefined) headers['Content-Type'] = 'application/json'
  return request(path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json), cache: 'no-store' })
}

/**
 * Ids of the memes a record is flagged as a near-duplicate of (a list of ids or of objects with an id).
 * @param {any} meme
 * @returns {string[]}
 */
export function nearDuplicates(meme) {
  const list = meme.nearDuplicateOf ?? meme.nearDuplicates ?? []
  if (!Array.isArray(list)) return []
  return list.map((item) => (typeof item === 'string' ? item : item?.id)).filter((id) => typeof id === 'string')
}

/**
 * The tag catalog from a tag list answer ({tags: [...]} of names or of {name, memeCount, aliases}).
 * @param {any} body
 * @returns {{ name: string, memeCount: number | null, aliases: string[] }[]}
 */
export function catalogTags(body) {
  const list = Array.isArray(body?.tags) ? body.tags : []
  return list
    .map((/** @type {any} */ t) =>
      typeof t === 'string'
        ? { name: t, memeCount: null, aliases: [] }
        : {
            name: t?.name,
            memeCount: t?.memeCount ?? null,
            aliases: Array.isArray(t?.aliases) ? t.aliases.filter((/** @type {unknown} */ a) => typeof a === 'string') : [],
          },
    )
    .filter((/** @type {{ name: unknown }} */ t) => typeof t.name === 'string')
}

/**
 * An object URL of a meme image of any status, fetched with the token (an <img> cannot send one).
 * @param {string} id
 * @returns {Promise<string | null>}
 */
export async function adminImage(id) {
  for (const url of [`/api/admin/memes/${id}/media`, `/media/${id}`]) {
    try {
      const response = await fetch(url, { headers: { Authorization: `Bearer ${token.get() ?? ''}` } })
      if (response.ok) return URL.createObjectURL(await response.blob())
    } catch {
      // try the next source
    }
  }
  return null
}
