import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BrowserContext, chromium, type Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
/** Screenshots of every screen land here (git-ignored). */
export const artifactsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../artifacts/screenshots')

export interface Browser {
  context: BrowserContext
  page: Page
  /** CSP violations, page errors and console errors seen so far. */
  problems: string[]
  screenshot(name: string): Promise<void>
  close(): Promise<void>
}

/** Headless Debian Chromium with a throw-away profile, as the issue prescribes. */
export async function openBrowser(): Promise<Browser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'dashboard-chromium-'))
  await mkdir(artifactsDir, { recursive: true })
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  })
  const page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(20_000)
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    const text = message.text()
    // A 4xx/5xx fetch logs "Failed to load resource"; the app shows those itself.
    if (message.type() === 'error' && !/Failed to load resource/.test(text)) problems.push(`console: ${text}`)
  })
  return {
    context,
    page,
    problems,
    async screenshot(name) {
      await page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: true })
    },
    async close() {
      await context.close().catch(() => {})
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/** Polls `check` until it returns a truthy value (for state that needs a refresh to show). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 20_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
