import { createHash, randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { tooManyRequests } from '@app/common'
import type { LeaseRepository } from '../leases/repository.ts'

// Far longer than one login (one scrypt and a few queries); a lease left by a crashed instance frees itself then.
const LEASE_SECONDS = 30
// Logins from one address waiting on this instance; more at once are refused instead of queued.
const MAX_WAITING_PER_IP = 20
// How long a login waits for one from the same address on another instance.
const LEASE_WAIT_MS = 2000
const LEASE_POLL_MS = 25

const busy = () => tooManyRequests('Another login from this address is in progress; retry in 1 second.', 1)

/**
 * Logins from one IP address run one at a time, across every instance: the "is it blocked?" check,
 * the password check and the failure count form one step, so a burst of guesses cannot all pass
 * the check before any failure is counted. On one instance they queue in memory; across instances
 * a lease row in the shared database makes them take turns.
 */
export function loginTurns(leases: LeaseRepository, log: { warn: (obj: unknown, msg?: string) => void }) {
  const queues = new Map<string, { tail: Promise<void>; size: number }>()

  async function withLease<T>(ip: string, fn: () => Promise<T>): Promise<T> {
    // Hashed: the address comes from the client (X-Forwarded-For) and may be long.
    const name = `login:${createHash('sha256').update(ip).digest('base64url')}`
    const holder = randomUUID()
    const deadline = Date.now() + LEASE_WAIT_MS
    while (!(await leases.take(name, holder, LEASE_SECONDS))) {
      if (Date.now() + LEASE_POLL_MS > deadline) throw busy()
      await sleep(LEASE_POLL_MS)
    }
    try {
      return await fn()
    } finally {
      await leases
        .release(name, holder)
        .catch((error) => log.warn({ err: error }, 'login lease release failed; it expires by itself'))
    }
  }

  return {
    /** Runs `fn` when no other login from `ip` is running here or on another instance; 429 when too many wait. */
    async run<T>(ip: string, fn: () => Promise<T>): Promise<T> {
      let queue = queues.get(ip)
      if (!queue) {
        queue = { tail: Promise.resolve(), size: 0 }
        queues.set(ip, queue)
      }
      if (queue.size >= MAX_WAITING_PER_IP) throw busy()
      queue.size++
      const previous = queue.tail
      let done!: () => void
      queue.tail = new Promise<void>((resolve) => {
        done = resolve
      })
      try {
        await previous
        return await withLease(ip, fn)
      } finally {
        done()
        if (--queue.size === 0) queues.delete(ip)
      }
    },
  }
}
