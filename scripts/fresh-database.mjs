// Prints the URL of a newly created, empty database on the server named by $1 (a postgres:// URL),
// or exits 1 when that server does not answer.
import pg from 'pg'

const serverUrl = process.argv[2]
const name = `ci_${Date.now().toString(36)}`
const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3000 })
try {
  await client.connect()
  await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
} catch (error) {
  console.error(`PostgreSQL at ${serverUrl} did not answer: ${error.message}`)
  process.exit(1)
} finally {
  await client.end().catch(() => {})
}
const url = new URL(serverUrl)
url.pathname = `/${name}`
console.log(url.toString())
