import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchChromium, saveScreenshot, watchPageErrors } from '@app/testing/browser'
import type { BrowserContext, Page } from 'playwright-core'
import { TEST_PASSWORD } from '../helper.ts'

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

/** Headless Chromium with a throw-away profile, its page's problems collected. */
export async function openBrowser(): Promise<Browser> {
  const { context, page, close } = await launchChromium({ timeoutMs: 20_000 })
  // A 4xx/5xx fetch logs "Failed to load resource"; the app shows those itself.
  const problems = watchPageErrors(page, (text) => !/Failed to load resource/.test(text))
  return {
    context,
    page,
    problems,
    async screenshot(name) {
      await saveScreenshot(page, artifactsDir, `${name}.png`)
    },
    close,
  }
}

/** Opens the app at `base` and logs in through its form as the test admin. */
export async function logIn(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/`)
  await page.getByLabel('Username', { exact: true }).fill('admin')
  await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD)
  await page.getByRole('button', { name: 'Log in' }).click()
}
