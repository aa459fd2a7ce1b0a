import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()

/**
 * Checks `Authorization: Bearer <token>` against the configured token. Both sides are hashed first, so the
 * comparison takes the same time whatever the given token's length or content.
 */
export function bearerChecker(token: string) {
  const expected = digest(token)
  return function check(header: string | undefined): 'ok' | 'missing' | 'invalid' {
    if (!header) return 'missing'
    if (header.slice(0, 7).toLowerCase() !== 'bearer ') return 'invalid'
    return timingSafeEqual(digest(header.slice(7).trim()), expected) ? 'ok' : 'invalid'
  }
}
