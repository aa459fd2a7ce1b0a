import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { from as copyFromStdin, to as copyToStdout } from 'pg-copy-streams'
import { copyChunks, copyStatement } from './copy.ts'
import { type Database, DatabaseUnavailableError, type ListenOptions, type Queryable } from './types.ts'

// int8 (counts, sums) as numbers; values beyond 2^53 are not used by these services.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format)
  },
}

// SQLSTATE classes and socket errors that mean "the server is not there", not "the query is wrong".
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
])

function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string }
  if (e?.code && UNAVAILABLE_CODES.has(e.code)) return true
  // pg-pool's own wait for a free slot ("timeout exceeded when trying to connect") happens when every slot hangs connecting.
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
    e?.message ?? '',
  )
}

function wrap(error: unknown): unknown {
  return isUnavailable(error) ? new DatabaseUnavailableError(error) : error
}

/** Streams rows into COPY ... FROM STDIN on one connection (a pool lends one for the call). */
async function copyInto(
  client: pg.Pool | pg.PoolClient,
  table: string,
  columns: string[],
  rows: Iterable<string> | AsyncIterable<string>,
) {
  const own = client instanceof pg.Pool ? await client.connect() : undefined
  const connection = own ?? (client as pg.PoolClient)
  let lost: Error | undefined
  try {
    const stream = connection.query(copyFromStdin(copyStatement(table, columns, 'STDIN')))
    await pipeline(Readable.from(copyChunks(rows, 1 << 16)), stream)
    return stream.rowCount
  } catch (error) {
    lost = own ? (error as Error) : undefined
    throw error
  } finally {
    // A failed COPY leaves the connection in an unknown protocol state: discard it rather than reuse it.
    own?.release(lost)
  }
}

/** Streams COPY (query) TO STDOUT from one connection; the socket is paused while the consumer is busy. */
async function* copyOutOf(client: pg.Pool | pg.PoolClient, query: string): AsyncGenerator<Buffer> {
  const own = client instanceof pg.Pool ? await client.connect() : undefined
  const connection = own ?? (client as pg.PoolClient)
  const stream = connection.query(copyToStdout(`COPY (${query}) TO STDOUT`))
  let ended = false
  let failure: Error | undefined
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false })) yield chunk as Buffer
    ended = true
  } catch (error) {
    failure = error as Error
    throw error
  } finally {
    if (own) {
      // Stopped mid-COPY, the connection is in the middle of the protocol: discard it rather than reuse it. Ending
      // it fails the COPY's stream once more, which nobody reads any longer.
      if (!ended) stream.on('error', () => {})
      own.release(ended ? undefined : (failure ?? new Error('COPY TO stopped early')))
    } else if (!ended && !failure) {
      // A transaction's connection cannot be discarded: read the rest so it is usable again.
      for await (const _ of stream) {
      }
    }
  }
}

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async *copyTo(query) {
      try {
        yield* copyOutOf(client, query)
      } catch (error) {
        throw wrap(error)
      }
    },
    async copyFrom(table, columns, rows) {
      try {
        return await copyInto(client, table, columns, rows)
      } catch (error) {
        throw wrap(error)
      }
    },
    async query(sql, params) {
      try {
        const result = await client.query(sql, params as unknown[])
        return { rows: result.rows, rowCount: result.rowCount ?? 0 }
      } catch (error) {
        throw wrap(error)
      }
    },
    async exec(sql) {
      try {
        await client.query(sql)
      } catch (error) {
        throw wrap(error)
      }
    },
  }
}

interface Subscription {
  channel: string
  onPayload: (payload: string) => void
  options?: ListenOptions
}

export function openPgDatabase(url: string, log?: { warn: (obj: unknown, msg?: string) => void }): Database {
  const pool = new pg.Pool({ connectionString: url, types, max: 10, connectionTimeoutMillis: 3000, idleTimeoutMillis: 30_000 })
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', (error) => log?.warn({ err: error }, 'idle database client error'))
  const subscriptions = new Set<Subscription>()
  let listener: pg.Client | undefined
  let connecting: Promise<pg.Client> | undefined
  let closed = false
  let retryTimer: NodeJS.Timeout | undefined

  async function connectListener(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url, types, connectionTimeoutMillis: 3000 })
    client.on('notification', (message) => {
      for (const s of subscriptions) if (s.channel === message.channel) s.onPayload(message.payload ?? '')
    })
    const lost = (error?: Error) => {
      if (listener !== client) return
      listener = undefined
      if (error) log?.warn({ err: error }, 'notification connection lost; reconnecting')
      scheduleReconnect(250)
    }
    client.on('error', lost)
    client.on('end', () => lost())
    await client.connect()
    for (const channel of new Set([...subscriptions].map((s) => s.channel))) {
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
    }
    listener = client
    return client
  }

  function scheduleReconnect(delay: number) {
    if (closed || retryTimer) return
    retryTimer = setTimeout(async () => {
      retryTimer = undefined
      try {
        await connectListener()
        for (const s of subscriptions) s.options?.onReconnect?.()
      } catch {
        scheduleReconnect(Math.min(delay * 2, 5000))
      }
    }, delay)
    retryTimer.unref()
  }

  async function ensureListener(): Promise<pg.Client> {
    if (listener) return listener
    connecting ??= connectListener().finally(() => {
      connecting = undefined
    })
    return connecting
  }

  return {
    driver: 'pg',
    ...queryable(pool),
    async transaction(fn) {
      let client: pg.PoolClient
      try {
        client = await pool.connect()
      } catch (error) {
        throw wrap(error)
      }
      // A checked-out client has no pool listener: a server dying between two queries would emit an
      // unhandled 'error' and crash the process. Keep it, and hand it to release() to discard the client.
      let lost: Error | undefined
      const onLost = (error: Error) => {
        lost = error
      }
      client.on('error', onLost)
      try {
        await client.query('BEGIN')
        const result = await fn(queryable(client))
        await client.query('COMMIT')
        return result
      } catch (error) {
        if (!lost) await client.query('ROLLBACK').catch(() => {})
        throw wrap(error)
      } finally {
        client.off('error', onLost)
        client.release(lost)
      }
    },
    async listen(channel, onPayload, options) {
      const subscription = { channel, onPayload, options }
      subscriptions.add(subscription)
      try {
        const client = await ensureListener()
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
      } catch (error) {
        // Keep the subscription: the reconnect loop will LISTEN and report a resync.
        log?.warn({ err: error }, 'could not LISTEN yet; will retry')
        scheduleReconnect(250)
      }
      return async () => {
        subscriptions.delete(subscription)
      }
    },
    async notify(channel, payload) {
      await queryable(pool).query('SELECT pg_notify($1, $2)', [channel, payload])
    },
    async close() {
      closed = true
      if (retryTimer) clearTimeout(retryTimer)
      const client = listener
      listener = undefined
      await client?.end().catch(() => {})
      await pool.end()
    },
  }
}
