import { createHash, timingSafeEqual } from 'node:crypto'
import type { Queryable } from '@app/common'
import { generatePassword, hashPassword, type ParsedHash, parseScryptHash, verifyPassword } from './password.ts'

export interface Credentials {
  username: string
  /** Same work and same answer time for an unknown user and a wrong password. */
  verify(username: string, password: string): Promise<boolean>
}

export interface CredentialOptions {
  username: string
  password?: string
  passwordHash?: string
  db: Queryable
  log: { warn: (msg: string) => void }
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()

/**
 * DASHBOARD_PASSWORD_HASH, else DASHBOARD_PASSWORD, else a password generated on first start whose
 * scrypt hash is kept in the database (shared by instances); the generated password is logged once.
 */
export async function loadCredentials({ username, password, passwordHash, db, log }: CredentialOptions): Promise<Credentials> {
  let parsed: ParsedHash | null
  if (passwordHash) {
    parsed = parseScryptHash(passwordHash)
    if (!parsed) throw new Error('DASHBOARD_PASSWORD_HASH is not a valid $scrypt$ln=..,r=..,p=..$salt$hash string')
  } else if (password) {
    parsed = parseScryptHash(await hashPassword(password))
  } else {
    parsed = await bootstrapPassword(db, username, log)
  }
  const hash = parsed!
  const expectedUser = digest(username)
  return {
    username,
    async verify(candidateUser, candidatePassword) {
      const userOk = timingSafeEqual(digest(candidateUser), expectedUser)
      const passwordOk = await verifyPassword(candidatePassword, hash)
      return userOk && passwordOk
    },
  }
}

async function bootstrapPassword(db: Queryable, username: string, log: CredentialOptions['log']): Promise<ParsedHash> {
  const existing = await db.query<{ password_hash: string }>(
    'SELECT password_hash FROM dashboard_credentials WHERE username = $1',
    [username],
  )
  if (existing.rows[0]) {
    const parsed = parseScryptHash(existing.rows[0].password_hash)
    if (parsed) return parsed
  }
  const password = generatePassword()
  const hash = await hashPassword(password)
  const inserted = await db.query(
    `INSERT INTO dashboard_credentials (username, password_hash) VALUES ($1, $2)
     ON CONFLICT (username) DO NOTHING RETURNING username`,
    [username, hash],
  )
  if (inserted.rowCount === 0) {
    // Another instance generated it at the same moment: use its hash (it printed the password).
    const { rows } = await db.query<{ password_hash: string }>(
      'SELECT password_hash FROM dashboard_credentials WHERE username = $1',
      [username],
    )
    return parseScryptHash(rows[0].password_hash)!
  }
  log.warn(
    `No DASHBOARD_PASSWORD or DASHBOARD_PASSWORD_HASH set: generated the dashboard password for "${username}": ${password} ` +
      '(shown only this once; only its scrypt hash is stored; set DASHBOARD_PASSWORD to choose your own)',
  )
  return parseScryptHash(hash)!
}
