import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchChromium, saveScreenshot, watchPageErrors } from '@app/testing/browser'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { build } from '../helper.ts'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** Repo-root artifacts/ (git-ignored): screenshots of the test run. */
export const artifactsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../artifacts')

export const screenshot = (page: Page, name: string) => saveScreenshot(page, artifactsDir, name)

/** The real app on 127.0.0.1 with an ephemeral port; read limits raised so a browsing test is not throttled. */
export async function serve(t: Teardown, env: Record<string, string> = {}) {
  const app = await build(t, { env: { READ_RATE_LIMIT: '100000', MEDIA_RATE_LIMIT: '100000', ...env } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  return { app, base: `http://127.0.0.1:${port}` }
}

/** Headless Chromium, closed at the test's end. */
export async function launch(t: Teardown): Promise<BrowserContext> {
  // Generous: the whole suite shares two cores.
  const browser = await launchChromium({ timeoutMs: 30_000 })
  t.teardown(() => browser.close())
  return browser.context
}

/** Script errors and policy violations seen by a page: a test expects none. */
export const watchErrors = (page: Page) =>
  watchPageErrors(page, (text) => /Content Security Policy|Trusted Type|Uncaught/i.test(text))

/** A meme-like PNG (coloured background, a face, big text); the seed makes the bytes unique. */
export async function memePng(seed: number, text = 'HELLO BROWSER'): Promise<Buffer> {
  const hue = (seed * 53) % 360
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="360">
    <rect width="100%" height="100%" fill="hsl(${hue},65%,50%)"/>
    <circle cx="240" cy="180" r="${70 + (seed % 10)}" fill="#fcd34d" stroke="#333" stroke-width="4"/>
    <circle cx="215" cy="165" r="8" fill="#333"/><circle cx="265" cy="165" r="8" fill="#333"/>
    <text x="240" y="50" font-family="sans-serif" font-size="34" font-weight="700" text-anchor="middle" fill="#fff"
      stroke="#000" stroke-width="2">${text}</text>
  </svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}
