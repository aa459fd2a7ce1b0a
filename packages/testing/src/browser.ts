import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'

/** The Chromium the browser tests drive: Debian's package unless CHROMIUM_PATH names another. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why the browser tests cannot run on this machine (a missing system component: a visible skip), or false. */
export function chromiumMissing(executable = CHROMIUM_PATH): string | false {
  return existsSync(executable) ? false : `${executable} not installed (set CHROMIUM_PATH to another Chromium)`
}

export interface Chromium {
  context: BrowserContext
  /** The page the browser opened with. */
  page: Page
  close(): Promise<void>
}

/** Headless Chromium with a throw-away profile; `timeoutMs` is the default for every wait and action. */
export async function launchChromium({ timeoutMs = 30_000 } = {}): Promise<Chromium> {
  const profile = await mkdtemp(path.join(tmpdir(), 'test-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  context.setDefaultTimeout(timeoutMs)
  const page = context.pages()[0] ?? (await context.newPage())
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => {})
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/** Saves a full-page screenshot as `dir/name` and returns its path. */
export async function saveScreenshot(page: Page, dir: string, name: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, name)
  await page.screenshot({ path: file, fullPage: true })
  return file
}

/**
 * Script errors of `page`, and the console errors `isProblem` picks, as they happen: a test expects none.
 * Each service decides which console errors count (a failed fetch the app reports itself may not).
 */
export function watchPageErrors(page: Page, isProblem: (consoleError: string) => boolean): string[] {
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    const text = message.text()
    if (message.type() === 'error' && isProblem(text)) problems.push(`console: ${text}`)
  })
  return problems
}
