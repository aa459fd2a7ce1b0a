import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { freePort } from '../network.ts'

const exec = promisify(execFile)
export const SSHD = '/usr/sbin/sshd'

export interface Sshd {
  host: string
  port: number
  username: string
  dir: string
  /** Path of the authorized client's private key (ed25519, no passphrase). */
  clientKeyPath: string
  clientKey: string
  /** Path of a second key that is NOT authorized. */
  strangerKeyPath: string
  /** "SHA256:..." of the current host key, as `ssh-keygen -l` prints it. */
  hostFingerprint: string
  /** sshd's own log (stderr with -e), for diagnosing failures. */
  log(): string
  /** Generates another client key (optionally passphrase-protected), authorizes it, returns its path. */
  addClientKey(name: string, passphrase?: string): Promise<string>
  /** Replaces the host key and restarts sshd on the same port (a "changed host key"). */
  rotateHostKey(): Promise<string>
  stop(): Promise<void>
}

/** Why the real-sshd tests cannot run here, or null when they can. */
export function sshdUnavailable(): string | null {
  if (!existsSync(SSHD)) return `${SSHD} not installed (apt-get install openssh-server)`
  if (!existsSync('/usr/bin/ssh-keygen')) return 'ssh-keygen not installed'
  return null
}

async function keygen(file: string, passphrase = '') {
  await rm(file, { force: true })
  await rm(`${file}.pub`, { force: true })
  await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'node-dashboard-test', '-f', file])
}

async function fingerprint(pubFile: string): Promise<string> {
  const { stdout } = await exec('ssh-keygen', ['-l', '-E', 'sha256', '-f', pubFile])
  return stdout.split(' ')[1]
}

function waitForBanner(port: number, deadline: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = connect(port, '127.0.0.1')
      socket.once('data', (data) => {
        socket.destroy()
        if (data.toString().startsWith('SSH-2.0-')) resolve()
        else reject(new Error(`unexpected banner ${data.toString()}`))
      })
      socket.once('error', () => {
        socket.destroy()
        if (Date.now() > deadline) reject(new Error('sshd did not start listening'))
        else setTimeout(attempt, 50)
      })
    }
    attempt()
  })
}

/**
 * A real OpenSSH server on 127.0.0.1 (a free port) with its own config, host key and one
 * authorized client key, running as the current user. Callers skip when sshdUnavailable().
 */
export async function startSshd(): Promise<Sshd> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sshd-'))
  // sshd insists on its privilege-separation directory.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 })
  const port = await freePort()
  const username = userInfo().username
  const hostKey = path.join(dir, 'host_ed25519')
  const clientKeyPath = path.join(dir, 'client_ed25519')
  const strangerKeyPath = path.join(dir, 'stranger_ed25519')
  await Promise.all([keygen(hostKey), keygen(clientKeyPath), keygen(strangerKeyPath)])
  await writeFile(path.join(dir, 'authorized_keys'), await readFile(`${clientKeyPath}.pub`))
  const config = path.join(dir, 'sshd_config')
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      `AllowUsers ${username}`,
      'MaxStartups 50',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  )
  let child: ChildProcess | null = null
  let log = ''
  const launch = async () => {
    child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] })
    child.stderr?.on('data', (d: Buffer) => {
      log += d.toString()
    })
    const exited = new Promise<never>((_, reject) =>
      child?.once('exit', (code) => reject(new Error(`sshd exited with ${code}: ${log}`))),
    )
    exited.catch(() => {})
    await Promise.race([waitForBanner(port, Date.now() + 10_000), exited])
  }
  const halt = async () => {
    const running = child
    child = null
    if (!running || running.exitCode !== null) return
    const gone = new Promise((r) => running.once('exit', r))
    running.kill('SIGTERM')
    await Promise.race([gone, sleep(3000)])
  }
  await launch()
  const sshd: Sshd = {
    host: '127.0.0.1',
    port,
    username,
    dir,
    clientKeyPath,
    clientKey: await readFile(clientKeyPath, 'utf8'),
    strangerKeyPath,
    hostFingerprint: await fingerprint(`${hostKey}.pub`),
    log: () => log,
    async addClientKey(name, passphrase) {
      const file = path.join(dir, name)
      await keygen(file, passphrase)
      await appendFile(path.join(dir, 'authorized_keys'), await readFile(`${file}.pub`))
      return file
    },
    async rotateHostKey() {
      await halt()
      await keygen(hostKey)
      sshd.hostFingerprint = await fingerprint(`${hostKey}.pub`)
      await launch()
      return sshd.hostFingerprint
    },
    async stop() {
      await halt()
      await rm(dir, { recursive: true, force: true })
    },
  }
  return sshd
}
