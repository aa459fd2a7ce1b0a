import { chmod, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createNodeHost, NODE_BINARY } from '@app/node-simulator'
import { type Sshd, sshdUnavailable, startSshd } from '@app/testing/ssh'
import t from 'tap'
import { createCookieReader } from '../../src/rpc/cookie.ts'
import type { NodeSettings } from '../../src/settings/repository.ts'
import { runSshCommand } from '../../src/ssh/client.ts'
import { startCommand } from '../../src/ssh/command.ts'

// The README's forced command for authorized_keys, run by a real sshd: the dashboard's own commands
// pass, anything else is refused.
const unavailable = sshdUnavailable()
if (unavailable) console.log(`# SKIP real-sshd forced-command test: ${unavailable}`)

const README = new URL('../../README.md', import.meta.url)

/** The script block of the README, with its example paths replaced by this node host's. */
async function readmeScript(paths: { bin: string; conf: string; cookie: string }): Promise<string> {
  const text = await readFile(README, 'utf8')
  const start = text.indexOf('    #!/bin/sh\n')
  const end = text.indexOf('    esac\n', start)
  if (start === -1 || end === -1) throw new Error('the README has no forced-command script')
  return text
    .slice(start, end + '    esac\n'.length)
    .replace(/^ {4}/gm, '')
    .replaceAll('/usr/local/bin/bitcoind', paths.bin)
    .replaceAll('/home/bitcoin/.bitcoin/bitcoin.conf', paths.conf)
    .replaceAll('/home/bitcoin/.bitcoin/.cookie', paths.cookie)
}

t.test(
  "the README's forced command allows the dashboard's commands and nothing else",
  { skip: unavailable ?? false },
  async (t) => {
    const sshd: Sshd = await startSshd()
    t.teardown(() => sshd.stop())
    const host = await createNodeHost({ cookieAuth: true, lockHoldMs: 100 })
    t.teardown(() => host.cleanup())
    await host.writeConf()

    const script = path.join(host.dir, 'dashboard-ssh')
    await writeFile(script, await readmeScript({ bin: NODE_BINARY, conf: host.confPath, cookie: host.cookiePath }))
    await chmod(script, 0o755)
    const publicKey = await readFile(`${sshd.clientKeyPath}.pub`, 'utf8')
    await writeFile(path.join(sshd.dir, 'authorized_keys'), `command="${script}",restrict ${publicKey}`)

    const run = (command: string) =>
      runSshCommand({
        host: sshd.host,
        port: sshd.port,
        username: sshd.username,
        privateKey: sshd.clientKey,
        command,
        timeoutMs: 20_000,
      })

    const version = await run(`'${NODE_BINARY}' -version`)
    t.equal(version.exit_code, 0, version.stderr)
    t.match(version.stdout, /^Bitcoin Core daemon version v30\.0\.0/)

    const start = await run(startCommand({ nodeBinary: NODE_BINARY, configPath: host.confPath }))
    t.equal(start.exit_code, 0, start.stderr)
    await host.waitReady()
    const reindex = await run(startCommand({ nodeBinary: NODE_BINARY, configPath: host.confPath, reindex: true }))
    t.match(reindex, { exit_code: 1, stderr: /Cannot obtain a lock/ }, 'the -reindex start passes (and meets the running node)')

    const settings = {
      rpc_cookie_path: host.cookiePath,
      ssh_host: sshd.host,
      ssh_port: sshd.port,
      ssh_username: sshd.username,
      ssh_password: '',
      ssh_key_path: sshd.clientKeyPath,
      ssh_host_key_fingerprint: sshd.hostFingerprint,
    } as NodeSettings
    const elsewhere = async () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' })
    }
    const cookie = await createCookieReader({ sshTimeoutMs: 20_000, readLocal: elsewhere })(settings)
    t.equal(`${cookie.user}:${cookie.password}`, await readFile(host.cookiePath, 'utf8'), 'the cookie read passes')

    for (const other of ['id', `cat '${host.cookiePath}'`, `'${NODE_BINARY}' -conf='/tmp/other.conf' -daemon`]) {
      const refused = await run(other)
      t.equal(refused.exit_code, 126, `refused: ${other}`)
      t.match(refused.stderr, 'refused:')
    }
  },
)
