import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { test } from 'tap'
import { createNodeHost, rpc } from '../src/index.ts'

test('bin/bitcoind.sh behaves like `bitcoind -conf=... -daemon` (v30)', async (t) => {
  // A long lock hold keeps the "still locked" step independent of how fast a loaded machine boots node.
  const host = await createNodeHost({ lockHoldMs: 6000 })
  t.teardown(() => host.cleanup())
  await host.writeConf()

  const first = await host.start()
  t.equal(first.code, 0, 'the daemon parent exits 0')
  t.equal(first.stdout, 'Bitcoin Core starting\n')
  t.ok(host.isRunning(), 'the datadir lock is taken at once')
  await host.waitReady()
  t.ok(existsSync(path.join(host.datadir, 'bitcoind.pid')), 'pid file written')

  const second = await host.start()
  t.equal(second.code, 1, 'a second start fails')
  t.equal(second.stderr, `Error: Cannot obtain a lock on directory ${host.lockDir}. Bitcoin Core is probably already running.\n`)

  const stop = await rpc(host.url, 'stop')
  t.equal(stop.json.result, 'Bitcoin Core stopping')
  // Refused once the listener is gone; reset when the call connected in the instant before it closed
  // (bitcoind closes its port ~2 ms after replying). Either way no answer comes back.
  const after = await rpc(host.url, 'getblockcount').then(
    () => 'answered',
    (error: NodeJS.ErrnoException) => error.code,
  )
  t.ok(after === 'ECONNREFUSED' || after === 'ECONNRESET', `the RPC port closes at once (${after})`)
  const early = await host.start()
  t.equal(early.code, 1, 'a start while the old process still holds the lock fails')
  t.match(early.stderr, 'Cannot obtain a lock on directory')

  await host.waitExited()
  t.notOk(existsSync(path.join(host.datadir, 'bitcoind.pid')), 'pid file removed on exit')
  const again = await host.start()
  t.equal(again.code, 0, 'start succeeds once the old process is gone')
  await host.waitReady()
})

test('bin/bitcoind.sh reports a missing config file like bitcoind', async (t) => {
  const host = await createNodeHost()
  t.teardown(() => host.cleanup())
  const missing = path.join(host.dir, "it's missing.conf")
  const result = await host.start([`-conf=${missing}`, '-daemon'])
  t.equal(result.code, 1)
  t.equal(result.stderr, `Error: Error reading configuration file: specified config file "${missing}" could not be opened.\n`)
  t.equal(result.stdout, '')
})

test('warm-up statuses come in init.cpp order, then the node answers', async (t) => {
  const host = await createNodeHost()
  t.teardown(() => host.cleanup())
  await host.writeConf(undefined, 'simwarmupms=100\nsimblockindexms=1500\nsimverifyblocksms=1000')
  t.equal((await host.start()).code, 0)
  const seen: string[] = []
  const deadline = Date.now() + 15_000
  for (;;) {
    const reply = await rpc(host.url, 'getblockcount', [], { auth: 'u:p' }).catch(() => null)
    const error = reply?.json?.error
    if (error?.code === -28 && seen.at(-1) !== error.message) seen.push(error.message)
    if (reply?.json?.result === 101) break
    if (Date.now() > deadline) throw new Error('node did not become ready')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.ok(seen.includes('Loading block index…'), JSON.stringify(seen))
  t.ok(seen.indexOf('Loading block index…') < seen.indexOf('Verifying blocks…'), 'block index before verification')
  t.match(await readFile(host.debugLogPath, 'utf8'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ Bitcoin Core version v30\.0\.0/)
})

test('a corrupted block database: warm-up, then debug.log asks for -reindex and the node exits; -reindex clears it', async (t) => {
  const host = await createNodeHost()
  t.teardown(() => host.cleanup())
  await host.writeConf()
  await host.corruptBlockDatabase()
  const failing = await host.start([`-conf=${host.confPath}`, '-daemonwait'])
  t.equal(failing.code, 1, 'the node exits non-zero')
  t.equal(failing.stderr, 'Error during initialization - check debug.log for details\n')
  const log = await readFile(host.debugLogPath, 'utf8')
  t.match(log, 'Z Error: Corrupted block database detected.\nPlease restart with -reindex or -reindex-chainstate to recover.\n')
  t.match(log, 'Aborted block database rebuild. Exiting.')
  t.notOk(host.isRunning(), 'the lock is released')
  t.equal((await host.start([`-conf=${host.confPath}`, '-daemonwait'])).code, 1, 'it fails again without -reindex')

  t.equal((await host.start([`-conf=${host.confPath}`, '-daemon', '-reindex'])).code, 0)
  await host.waitReady()
  t.match(await readFile(host.debugLogPath, 'utf8'), 'Reindexing block file')
})
