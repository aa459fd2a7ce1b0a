import ssh2 from 'ssh2'
import { fingerprintOf } from './fingerprint.ts'

const { Client, utils } = ssh2

export interface SshTarget {
  host: string
  port: number
  username: string
  password?: string
  /** A private key's text (OpenSSH/PEM). */
  privateKey?: string
  passphrase?: string
}

export interface SshRunOptions extends SshTarget {
  command: string
  /** Whole budget: connect, authenticate, run and collect output. */
  timeoutMs: number
  /** The trusted host key ("SHA256:..."); null/empty trusts the first key seen (the caller records it). */
  expectedFingerprint?: string | null
  /** Per stream; the rest is cut with a marker so a chatty command cannot exhaust memory. */
  maxOutputBytes?: number
  /** Written to the command's stdin, which is then closed (e.g. a file's new content). */
  input?: Buffer
}

/** The remote payload of one command. */
export interface SshResult {
  command: string
  exit_code: number | null
  stdout: string
  stderr: string
  duration_ms: number
}

export type SshFailure = 'unreachable' | 'auth' | 'host-key' | 'timeout' | 'protocol'

export class SshError extends Error {
  constructor(
    readonly kind: SshFailure,
    message: string,
    /** The key the server showed, when the handshake got that far. */
    readonly fingerprint: string | null,
    /** Whatever the command produced before the failure (timeouts). */
    readonly result: SshResult | null = null,
  ) {
    super(message)
    this.name = 'SshError'
  }
}

export interface SshRunResult extends SshResult {
  fingerprint: string
}

/** Checks a key (and passphrase) before connecting; returns the reason it is unusable, or null. */
export function keyProblem(privateKey: string, passphrase?: string): string | null {
  const parsed = utils.parseKey(privateKey, passphrase)
  if (parsed instanceof Error) return parsed.message
  const key = Array.isArray(parsed) ? parsed[0] : parsed
  return key?.isPrivateKey() ? null : 'not a private key'
}

class Collector {
  private chunks: Buffer[] = []
  private size = 0
  private truncated = false
  constructor(private readonly max: number) {}
  push(chunk: Buffer) {
    if (this.size >= this.max) {
      this.truncated = true
      return
    }
    const part = chunk.subarray(0, this.max - this.size)
    if (part.length < chunk.length) this.truncated = true
    this.chunks.push(part)
    this.size += part.length
  }
  text() {
    return Buffer.concat(this.chunks).toString('utf8') + (this.truncated ? '\n[output truncated]' : '')
  }
}

function classify(error: Error & { level?: string; code?: string }): SshFailure {
  if (error.level === 'client-authentication') return 'auth'
  if (error.level === 'client-timeout') return 'timeout'
  if (error.level === 'client-socket' || error.level === 'client-dns' || error.code) return 'unreachable'
  return 'protocol'
}

/** Runs one command over SSH and resolves with its exit code and output, whatever the code is. */
export function runSshCommand(options: SshRunOptions): Promise<SshRunResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const stdout = new Collector(options.maxOutputBytes ?? 65_536)
  const stderr = new Collector(options.maxOutputBytes ?? 65_536)
  const payload = (exit_code: number | null): SshResult => ({
    command: options.command,
    exit_code,
    stdout: stdout.text(),
    stderr: stderr.text(),
    duration_ms: elapsed(),
  })
  const conn = new Client()
  let seen: string | null = null
  let hostKeyRefused = false
  let ran = false

  return new Promise<SshRunResult>((resolve, reject) => {
    let settled = false
    const finish = (fn: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      fn()
      conn.end()
      // A server that ignores our close must not keep the socket (and the action) alive.
      setTimeout(() => conn.destroy(), 1000).unref()
    }
    const fail = (kind: SshFailure, message: string) =>
      finish(() => reject(new SshError(kind, message, seen, ran ? payload(null) : null)))

    const timer = setTimeout(
      () =>
        fail(
          'timeout',
          ran
            ? `SSH command did not finish within ${options.timeoutMs} ms`
            : `SSH connection to ${options.host}:${options.port} timed out after ${options.timeoutMs} ms`,
        ),
      options.timeoutMs,
    )

    conn.on('ready', () => {
      conn.exec(options.command, (error, stream) => {
        if (error) return fail('protocol', `SSH exec failed: ${error.message}`)
        ran = true
        if (options.input !== undefined) stream.end(options.input)
        let exitCode: number | null = null
        let signal: string | null = null
        stream.on('data', (chunk: Buffer) => stdout.push(chunk))
        stream.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
        stream.on('exit', (code: number | null, sig?: string) => {
          exitCode = typeof code === 'number' ? code : null
          signal = sig ?? null
        })
        stream.on('close', () => {
          if (exitCode === null && signal !== null) stderr.push(Buffer.from(`\n[killed by signal ${signal}]`))
          finish(() => resolve({ ...payload(exitCode), fingerprint: seen! }))
        })
      })
    })
    conn.on('error', (error: Error & { level?: string; code?: string }) => {
      if (hostKeyRefused) {
        return fail(
          'host-key',
          `SSH host key of ${options.host}:${options.port} changed: expected ${options.expectedFingerprint}, got ${seen}`,
        )
      }
      const kind = classify(error)
      const what =
        kind === 'auth'
          ? `SSH authentication as ${options.username} failed (${error.message})`
          : kind === 'unreachable'
            ? `SSH server ${options.host}:${options.port} unreachable (${error.code ?? error.message})`
            : kind === 'timeout'
              ? `SSH connection to ${options.host}:${options.port} timed out`
              : `SSH error: ${error.message}`
      fail(kind, what)
    })
    // A server that hangs up before "ready" without an error (e.g. sshd's MaxStartups) is a failure too.
    conn.on('close', () => fail('unreachable', `SSH connection to ${options.host}:${options.port} closed unexpectedly`))

    try {
      conn.connect({
        host: options.host,
        port: options.port,
        username: options.username,
        password: options.password || undefined,
        privateKey: options.privateKey || undefined,
        passphrase: options.passphrase || undefined,
        readyTimeout: options.timeoutMs,
        tryKeyboard: false,
        // The key first: a password is only offered when a key is absent or refused.
        authHandler: [...(options.privateKey ? ['publickey' as const] : []), ...(options.password ? ['password' as const] : [])],
        hostVerifier: (key: Buffer) => {
          seen = fingerprintOf(key)
          const expected = options.expectedFingerprint
          hostKeyRefused = Boolean(expected) && expected !== seen
          return !hostKeyRefused
        },
      })
    } catch (error) {
      fail('protocol', `SSH configuration rejected: ${(error as Error).message}`)
    }
  })
}
