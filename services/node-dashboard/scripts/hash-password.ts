// Prints a DASHBOARD_PASSWORD_HASH for the password read from stdin (so it stays out of shell history).
import { hashPassword } from '../src/auth/password.ts'

const chunks: Buffer[] = []
for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
const password = Buffer.concat(chunks)
  .toString('utf8')
  .replace(/\r?\n$/, '')
if (!password) {
  process.stderr.write('usage: printf %s "$PASSWORD" | node --import tsx scripts/hash-password.ts\n')
  process.exit(1)
}
process.stdout.write(`${await hashPassword(password)}\n`)
