import { execFile, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'
import { openDatabase } from '../src/db/index.ts'
import { createPgliteFolder, PGLITE_INIT } from '../src/db/pglite.ts'
import {
  copyPgliteTemplate,
  ensurePgliteTemplate,
  InvalidTemplateError,
  pgliteTemplateCacheDir,
  pgliteTemplateKey,
} from '../src/db/pglite-template.ts'

const embeddedOnly = { skip: process.env.DATABASE_URL ? 'embedded-only behaviour' : false }
const fixture = path.join(import.meta.dirname, 'fixtures', 'ensure-template.ts')

async function tempDir(t: { teardown(fn: () => unknown): void }, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** The identifier initdb gives a cluster: equal in two folders only when one is a copy of the other's source. */
async function systemIdentifier(dataDir: string): Promise<string> {
  const db = await openDatabase({ dataDir })
  try {
    const { rows } = await db.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')
    return rows[0]?.id ?? ''
  } finally {
    await db.close()
  }
}

test('the template key changes with the PGlite version and with the parameters', async (t) => {
  const key = pgliteTemplateKey(PGLITE_INIT, '0.5.16')
  t.match(key, /^0\.5\.16-[0-9a-f]{16}$/)
  t.equal(pgliteTemplateKey(PGLITE_INIT, '0.5.16'), key, 'stable')
  t.not(pgliteTemplateKey(PGLITE_INIT, '0.5.17'), key, 'another PGlite version')
  t.not(pgliteTemplateKey({ ...PGLITE_INIT, startParams: [...PGLITE_INIT.startParams, '-c', 'work_mem=8MB'] }, '0.5.16'), key)
  t.not(pgliteTemplateKey({ ...PGLITE_INIT, initdbParams: [] }, '0.5.16'), key, 'other initdb parameters')
})

test('processes asking at once get one template, made once by initdb in a child process', embeddedOnly, async (t) => {
  const cache = await tempDir(t, 'pglite-cache-')
  const run = promisify(execFile)
  const answers = await Promise.all(
    [1, 2, 3].map(async () => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', fixture, cache])
      return JSON.parse(stdout) as { created: boolean }
    }),
  )
  t.same(answers.map((a) => a.created).sort(), [false, false, true], 'one of the three made it')
  const key = pgliteTemplateKey(PGLITE_INIT)
  t.same(await readdir(cache), [key], 'no lock or half-made folder is left beside it')
  const conf = await readFile(path.join(cache, key, 'postgresql.conf'), 'utf8')
  t.match(conf, /^shared_buffers = 16MB/m, 'initdb ran with the bounded settings, recorded in postgresql.conf')

  const folders = [path.join(cache, '..', `${path.basename(cache)}-a`), path.join(cache, '..', `${path.basename(cache)}-b`)]
  t.teardown(() => Promise.all(folders.map((dir) => rm(dir, { recursive: true, force: true }))))
  for (const dir of folders) await createPgliteFolder(dir, cache)
  const ids = await Promise.all(folders.map(systemIdentifier))
  t.equal(ids[0], ids[1], 'both folders are copies of the template')
  t.equal(await systemIdentifier(path.join(cache, key)), ids[0])
})

test('a template cut short is never copied: it is made again', embeddedOnly, async (t) => {
  const cache = await tempDir(t, 'pglite-cache-')
  const { dir } = await ensurePgliteTemplate(cache, PGLITE_INIT)
  const before = await systemIdentifier(dir)
  await truncate(path.join(dir, 'global', 'pg_control'), 100)

  const target = await tempDir(t, 'pglite-db-')
  await t.rejects(copyPgliteTemplate(dir, path.join(target, 'direct')), InvalidTemplateError)
  t.notOk(existsSync(path.join(target, 'direct', 'PG_VERSION')), 'the refused copy is not a database')

  await createPgliteFolder(path.join(target, 'pg'), cache)
  t.not(await systemIdentifier(path.join(target, 'pg')), before, 'the folder comes from a new template')
  t.ok(existsSync(path.join(dir, 'pglite-template.json')), 'the new template took the old one’s place')
})

test('a lock left by a process that is gone does not stop the template', embeddedOnly, async (t) => {
  const cache = await tempDir(t, 'pglite-cache-')
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
  await writeFile(path.join(cache, `${pgliteTemplateKey(PGLITE_INIT)}.lock`), gone)
  const { created } = await ensurePgliteTemplate(cache, PGLITE_INIT)
  t.ok(created)
})

test('a copy cut short before PG_VERSION is completed at the next open', embeddedOnly, async (t) => {
  const cache = await pgliteTemplateCacheDir()
  if (!cache) throw new Error('no template cache folder in the system temp folder')
  const { dir } = await ensurePgliteTemplate(cache, PGLITE_INIT)
  const target = path.join(await tempDir(t, 'pglite-db-'), 'pg')
  await copyPgliteTemplate(dir, target)
  await rm(path.join(target, 'PG_VERSION'))
  await rm(path.join(target, 'global', 'pg_control'))
  await createPgliteFolder(target, cache)
  t.equal(await systemIdentifier(target), await systemIdentifier(dir))
})
