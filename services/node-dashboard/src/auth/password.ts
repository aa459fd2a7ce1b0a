import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

// N = 2^15, r = 8, p = 1: about 32 MiB and a few tens of milliseconds per check.
const DEFAULT_LOG_N = 15
const KEY_LENGTH = 32

function scryptAsync(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

export interface ParsedHash {
  logN: number
  r: number
  p: number
  salt: Buffer
  hash: Buffer
}

/** Parses `$scrypt$ln=15,r=8,p=1$<salt base64>$<hash base64>`; null when malformed. */
export function parseScryptHash(text: string): ParsedHash | null {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/.exec(
    text.trim(),
  )
  if (!match) return null
  const [logN, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const salt = Buffer.from(match[4], 'base64')
  const hash = Buffer.from(match[5], 'base64')
  // Bounds keep a hostile hash from asking for gigabytes of memory.
  if (logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16 || salt.length < 8 || hash.length < 16) return null
  return { logN, r, p, salt, hash }
}

function options(logN: number, r: number, p: number): ScryptOptions {
  return { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 16 * 1024 * 1024 }
}

export async function hashPassword(password: string, logN = DEFAULT_LOG_N): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scryptAsync(password, salt, KEY_LENGTH, options(logN, 8, 1))
  return `$scrypt$ln=${logN},r=8,p=1$${salt.toString('base64')}$${hash.toString('base64')}`
}

/** Constant-time check of a password against a parsed hash (always runs scrypt in full). */
export async function verifyPassword(password: string, parsed: ParsedHash): Promise<boolean> {
  const candidate = await scryptAsync(password, parsed.salt, parsed.hash.length, options(parsed.logN, parsed.r, parsed.p))
  return timingSafeEqual(candidate, parsed.hash)
}

/** A strong generated password: 24 characters of base64url (144 bits). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url')
}
