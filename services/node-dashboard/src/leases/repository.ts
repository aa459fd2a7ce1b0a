import type { Queryable } from '@app/common'

/**
 * Named leases in the shared database: one holder per name until the lease runs out, so instances
 * take turns (the metrics sampler's leader, a login from one address).
 */
export function createLeaseRepository(db: Queryable) {
  return {
    /** Takes the lease, or renews it for the same holder; false while another holder's lease runs. */
    async take(name: string, holder: string, seconds: number): Promise<boolean> {
      const { rows } = await db.query<{ holder: string }>(
        `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
         ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
           WHERE leases.holder = EXCLUDED.holder OR leases.expires_at < now()
         RETURNING holder`,
        [name, holder, seconds],
      )
      return rows[0]?.holder === holder
    },
    async release(name: string, holder: string): Promise<void> {
      await db.query('DELETE FROM leases WHERE name = $1 AND holder = $2', [name, holder])
    },
  }
}

export type LeaseRepository = ReturnType<typeof createLeaseRepository>
