import { startNodeSimulator } from '@app/node-simulator'
import { eventually } from '@app/testing'
import { prometheusUnavailable, startPrometheus } from '@app/testing/prometheus'
import t from 'tap'
import { build } from '../helper.ts'

const TOKEN = `scrape-token-${process.pid}-${Date.now().toString(36)}`
const RPC_PASSWORD = 'prometheus-scrape-rpc-Secret'
const unavailable = prometheusUnavailable()

t.test(
  'a real Prometheus scrapes /metrics with the bearer token and answers the node height',
  { skip: unavailable ?? false },
  async (t) => {
    const sim = await startNodeSimulator({ password: RPC_PASSWORD, peers: 2 })
    t.teardown(() => sim.close())
    sim.mine(5)
    const app = await build(t, { env: { METRICS_TOKEN: TOKEN, METRICS_SAMPLE_SECONDS: '1' } })
    await app.settingsCache.update({ rpc_url: sim.url, rpc_username: sim.user, rpc_password: RPC_PASSWORD, rpc_wallet: '' })
    const address = await app.listen({ host: '127.0.0.1', port: 0 })

    const prometheus = await startPrometheus({ target: `${address}/metrics`, bearerToken: TOKEN, scrapeIntervalSeconds: 1 })
    t.teardown(() => prometheus.stop())
    const height = sim.chain.height
    const result = await eventually(
      async () => {
        const vector = await prometheus.query('bitcoind_blocks')
        if (vector.length !== 1 || vector[0].value[1] !== String(height)) throw new Error(`got ${JSON.stringify(vector)}`)
        return vector[0]
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    ).catch((error) => {
      t.comment(prometheus.log())
      throw error
    })
    t.equal(result.value[1], String(height), "Prometheus holds the simulator's height")
    t.match(result.metric, { job: 'node-dashboard', instance: new URL(address).host })
    const [target] = await prometheus.targets()
    t.match(target, { health: 'up', lastError: '' })
    const up = await prometheus.query('bitcoind_up')
    t.equal(up[0]?.value[1], '1')

    // A new block reaches Prometheus through the sampler's next round.
    sim.mine(1)
    await eventually(
      async () => {
        const vector = await prometheus.query('bitcoind_blocks')
        if (vector[0]?.value[1] !== String(height + 1)) throw new Error(`got ${JSON.stringify(vector)}`)
        return true
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    )
    t.pass('the next tip arrived')
  },
)

t.test(
  'a scrape job with the wrong token is refused (the target is down with 401)',
  { skip: unavailable ?? false },
  async (t) => {
    const app = await build(t, { env: { METRICS_TOKEN: TOKEN, METRICS_SAMPLE_SECONDS: '86400' } })
    const address = await app.listen({ host: '127.0.0.1', port: 0 })
    const prometheus = await startPrometheus({ target: `${address}/metrics`, bearerToken: `${TOKEN}-wrong` })
    t.teardown(() => prometheus.stop())
    const target = await eventually(
      async () => {
        const [target] = await prometheus.targets()
        if (target?.health !== 'down') throw new Error(`target ${JSON.stringify(target)}`)
        return target
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    )
    t.match(target.lastError, /401/)
    t.same(await prometheus.query('bitcoind_blocks'), [], 'nothing was stored')
  },
)

if (unavailable) t.comment(`NOTICE: skipped: ${unavailable}`)
