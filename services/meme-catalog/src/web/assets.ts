import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { serviceRoot } from '../service-root.ts'

/** services/meme-catalog/web: the page sources, shipped as they are (no build step). */
export const webRoot = path.join(serviceRoot, 'web')
export const staticRoot = path.join(webRoot, 'static')

export interface Page {
  body: string
  etag: string
}

export interface WebAssets {
  /** Content hash of every static file: part of the asset URL, so assets can be cached forever. */
  version: string
  /** URL prefix of the static files, e.g. /assets/3f2a9c01b7de/ */
  prefix: string
  pages: { index: Page; admin: Page }
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true })
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort()
}

/** Reads the pages and hashes the static files once at start-up. */
export async function loadWebAssets(): Promise<WebAssets> {
  const hash = createHash('sha256')
  for (const file of await listFiles(staticRoot)) {
    hash.update(path.relative(staticRoot, file))
    hash.update(await readFile(file))
  }
  const version = hash.digest('hex').slice(0, 12)
  const prefix = `/assets/${version}/`
  const page = async (name: string): Promise<Page> => {
    const body = (await readFile(path.join(webRoot, name), 'utf8')).replaceAll('%ASSETS%/', prefix)
    // Weak: the same page may travel compressed or not.
    return { body, etag: `W/"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` }
  }
  return { version, prefix, pages: { index: await page('index.html'), admin: await page('admin.html') } }
}
