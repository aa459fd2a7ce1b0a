import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sshdUnavailable, startSshd } from '@app/testing/ssh'
import { test } from 'tap'
import { build, login } from '../helper.ts'

// test/actions/start.test.ts covers a hostile config_path; this covers node_binary (and both at once) through the API.
const unavailable = sshdUnavailable()
if (unavailable) console.log(`# SKIP hostile node_binary tests: ${unavailable}`)

test('hostile node_binary and config_path run only the intended binary over the real sshd', {
  skip: unavailable ?? false,
}, async (t) => {
  const sshd = await startSshd()
  t.teardown(() => sshd.stop())
  const base = await mkdtemp(path.join(tmpdir(), 'hostile-'))
  t.teardown(() => rm(base, { recursive: true, force: true }))
  const app = await build(t, { env: { SSH_TIMEOUT_MS: '10000' } })
  const cookie = await login(app)
  const put = (payload: object) => app.inject({ method: 'PUT', url: '/api/settings', headers: { cookie }, payload })
  const start = async () => {
    const res = await app.inject({ method: 'POST', url: '/api/actions/start', headers: { cookie } })
    return { status: res.statusCode, body: res.json() }
  }
  const markers = [0, 1, 2, 3].map((i) => `/tmp/pwned-${process.pid}-${Date.now()}-${i}`)
  const noMarkers = (t: { notOk: (v: unknown, m: string) => void }, when: string) => {
    for (const marker of markers) t.notOk(existsSync(marker), `${when}: ${marker} was never created`)
    for (const name of ['pwned', 'pwned2', 'pwned3']) t.notOk(existsSync(path.join(sshd.dir, name)), `${when}: no ${name}`)
    t.notOk(existsSync(path.join(process.env.HOME ?? '/root', 'pwned')), `${when}: nothing in $HOME`)
  }
  // Shell syntax of every kind in one value: quote breaks, separators, substitutions, globs, redirections.
  const syntax = [
    `'; touch ${markers[0]}; '`,
    `"; touch ${markers[1]}; "`,
    `$(touch ${markers[2]})`,
    `\`touch ${markers[3]}\``,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, on purpose
    '${HOME} $HOME * ? [a] ~ & | < > # \\ ; && ||',
  ]
  await put({
    ssh_host: sshd.host,
    ssh_port: sshd.port,
    ssh_username: sshd.username,
    ssh_key_path: sshd.clientKeyPath,
    ssh_password: '',
    ssh_host_key_fingerprint: '',
  })

  await t.test('a real binary in a directory named with shell syntax gets the config as one argv item', async (t) => {
    // The recorder only runs if the whole path arrived verbatim; it writes its argv NUL-separated.
    const record = path.join(base, 'argv')
    const dir = path.join(base, ...syntax.map((s) => s.replaceAll('/', '_')))
    await mkdir(dir, { recursive: true })
    const binary = path.join(dir, `bin ${syntax[0].replaceAll('/', '_')}`)
    await writeFile(binary, `#!/bin/sh\nprintf '%s\\0' "$0" "$@" > '${record}'\necho recorded\n`)
    await chmod(binary, 0o755)
    const configPath = `/etc/${syntax.join(' ')}/bitcoin.conf`
    const saved = await put({ node_binary: binary, config_path: configPath })
    t.equal(saved.statusCode, 200, saved.body)
    t.equal(saved.json().node_binary, binary, 'stored verbatim')
    const res = await start()
    t.equal(res.status, 200, JSON.stringify(res.body))
    t.match(res.body.ssh, { exit_code: 0, stdout: 'recorded\n' })
    const argv = (await readFile(record, 'utf8')).split('\0').slice(0, -1)
    t.same(argv, [binary, `-conf=${configPath}`, '-daemon'], 'exactly three argv items, values intact')
    noMarkers(t, 'real binary')
  })

  await t.test('node_binary values that are shell code run nothing', async (t) => {
    const values = [
      `bitcoind; touch ${markers[0]}`,
      `bitcoind && touch ${markers[0]}`,
      `bitcoind | touch ${markers[0]}`,
      `x'; touch ${markers[0]}; echo '`,
      `x"; touch ${markers[1]}; echo "`,
      `$(touch ${markers[2]})`,
      `\`touch ${markers[3]}\``,
      `/bin/sh -c 'touch ${markers[0]}'`,
      `'`,
      `\\`,
    ]
    for (const value of values) {
      t.equal((await put({ node_binary: value, config_path: '/etc/bitcoin.conf' })).statusCode, 200, value)
      const res = await start()
      t.equal(res.status, 502, `${value}: refused`)
      // The remote shell looked for a program with exactly that name.
      t.equal(res.body.ssh?.exit_code, 127, `${value}: command not found (${res.body.ssh?.stderr})`)
      t.equal(
        res.body.ssh?.command,
        `'${value.replaceAll("'", `'\\''`)}' -conf='/etc/bitcoin.conf' -daemon`,
        `${value}: one quoted word`,
      )
    }
    noMarkers(t, 'shell code as node_binary')
  })

  await t.test('newlines and other control characters never reach the command', async (t) => {
    const before = (await app.settingsCache.get()).node_binary
    for (const field of ['node_binary', 'config_path']) {
      for (const value of [`/bin/true\ntouch ${markers[0]}`, `/bin/true\rtouch ${markers[0]}`, 'a\u0000b', 'a\u001bb']) {
        const res = await put({ [field]: value })
        t.equal(res.statusCode, 422, `${field} ${JSON.stringify(value)}`)
        t.match(res.json().detail, field)
      }
    }
    t.equal((await app.settingsCache.get()).node_binary, before, 'nothing stored')
    noMarkers(t, 'control characters')
  })
})
