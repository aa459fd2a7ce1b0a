// Small fetch wrapper for the JSON APIs: always resolves to a status and a parsed body (or null).
import { retryHint } from './format.js'

/**
 * @typedef {object} Meme
 * @property {string} id
 * @property {string} createdAt
 * @property {number} byteSize
 * @property {number} width
 * @property {number} height
 * @property {string} mime
 * @property {string} originalMime
 * @property {string} status
 * @property {number} moderationScore
 * @property {string} moderationReason
 * @property {number} viewCount
 * @property {number} downloadCount
 * @property {string} originalName
 * @property {string} url
 * @property {string} downloadUrl
 * @property {boolean} demo
 * @property {string} caption
 * @property {string[]} tags
 */

/**
 * @typedef {object} ApiResult
 * @property {number} status 0 when the request did not reach the server
 * @property {any} body parsed JSON, or null
 * @property {(name: string) => string | null} header
 */

/**
 * @param {string} url
 * @param {RequestInit} [init]
 * @returns {Promise<ApiResult>}
 */
export async function request(url, init = {}) {
  let response
  try {
    response = await fetch(url, { ...init, headers: { Accept: 'application/json', ...init.headers } })
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error
    return { status: 0, body: null, header: () => null }
  }
  let body = null
  const text = await response.text()
  if (text) {
    try {
      body = JSON.parse(text)
    } catch {
      body = null
    }
  }
  return { status: response.status, body, header: (name) => response.headers.get(name) }
}

/**
 * The message to show for a failed call: the server's `error` text, plus when to retry after a 429.
 * @param {ApiResult} result
 */
export function errorMessage(result) {
  if (result.status === 0) return 'The server could not be reached. Check your connection and try again.'
  const message =
    result.body && typeof result.body.error === 'string' ? result.body.error : `The server answered ${result.status}.`
  return result.status === 429 ? `${message} ${retryHint(result.header)}` : message
}

/**
 * Alt text for a meme image: its caption, or a plain description while it has none.
 * @param {Meme} meme
 */
export function altText(meme) {
  const caption = meme.caption.trim()
  return caption || `Meme without a caption yet${meme.tags.length ? `, tagged ${meme.tags.join(', ')}` : ''}`
}
