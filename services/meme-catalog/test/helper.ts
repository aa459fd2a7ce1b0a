import type { Database } from '@app/common'
import { loadConfig } from '@app/common'
import { buildTestApp, type TestAppOptions } from '@app/testing'
import { type App, buildApp } from '../src/app.ts'
import { configSchema } from '../src/config.ts'

export type BuildOptions = TestAppOptions<Database>

const catalog = {
  build: (env: Record<string, string>, deps: { db?: Database }) => buildApp(loadConfig(configSchema, env), deps),
  env: { DEMO_MEMES: 'false' },
}

/** Starts the catalog on a fresh database and closes both when the test ends. */
export function build(t: { teardown(fn: () => unknown): void }, options: BuildOptions = {}): Promise<App> {
  return buildTestApp(t, catalog, options)
}
