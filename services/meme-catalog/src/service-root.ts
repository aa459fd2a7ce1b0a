import { packageRoot } from '@app/common'

/** services/meme-catalog: found the same from the sources and from the compiled dist/server.js. */
export const serviceRoot = packageRoot(import.meta.url)
