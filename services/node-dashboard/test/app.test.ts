import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadConfig } from '@app/common'
import t from 'tap'
import { buildApp } from '../src/app.ts'
import { configSchema } from '../src/config.ts'
import { TEST_PASSWORD } from './helper.ts'

// Embedded in both CI runs: the setting is the embedded database's (a PostgreSQL server keeps its own).
t.test("the embedded database runs with the dashboard's 8 MB buffer pool", async (t) => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'dashboard-app-'))
  const app = buildApp(loadConfig(configSchema, { DATA_DIR: dataDir, DASHBOARD_PASSWORD: TEST_PASSWORD, DEMO_NODE: 'off' }))
  t.teardown(async () => {
    await app.close()
    await rm(dataDir, { recursive: true, force: true })
  })
  await app.ready()
  t.equal(app.db.driver, 'pglite')
  const { rows } = await app.db.query<{ pool: string; sorts: string }>(
    "SELECT current_setting('shared_buffers') AS pool, current_setting('work_mem') AS sorts",
  )
  t.same(rows[0], { pool: '8MB', sorts: '4MB' }, 'its own pool; the shared settings otherwise')
})
