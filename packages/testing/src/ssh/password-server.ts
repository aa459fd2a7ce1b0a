import { execFile, spawn } from 'node:child_process'
import { timingSafeEqual } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import ssh2 from 'ssh2'

const exec = promisify(execFile)

export interface PasswordSshServer {
  port: number
  username: string
  password: string
  hostFingerprint: string
  /** Commands received, in order. */
  commands: string[]
  close(): Promise<void>
}

/**
 * An SSH server (ssh2's own Server class) that accepts only password authentication and runs
 * each exec request with /bin/sh -c, so password logins are tested without touching the system's
 * sshd configuration.
 */
export async function startPasswordSshServer({ username = 'operator', password = 'correct horse' } = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'ssh2-server-'))
  const keyFile = path.join(dir, 'host_ed25519')
  await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile])
  const { stdout } = await exec('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${keyFile}.pub`])
  const commands: string[] = []
  const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
  const server = new ssh2.Server({ hostKeys: [await readFile(keyFile)] }, (client) => {
    client.on('authentication', (ctx) => {
      if (ctx.method === 'password' && same(ctx.username, username) && same(ctx.password, password)) return ctx.accept()
      ctx.reject(['password'])
    })
    client.on('ready', () => {
      client.on('session', (accept) => {
        accept().on('exec', (acceptExec, _reject, info) => {
          commands.push(info.command)
          const stream = acceptExec()
          const child = spawn('/bin/sh', ['-c', info.command], { stdio: ['ignore', 'pipe', 'pipe'] })
          child.stdout.pipe(stream, { end: false })
          child.stderr.pipe(stream.stderr, { end: false })
          child.on('close', (code) => {
            stream.exit(code ?? 255)
            stream.end()
          })
        })
      })
    })
    client.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const result: PasswordSshServer = {
    port: (server.address() as { port: number }).port,
    username,
    password,
    hostFingerprint: stdout.split(' ')[1],
    commands,
    async close() {
      await new Promise((r) => server.close(r))
      await rm(dir, { recursive: true, force: true })
    },
  }
  return result
}
