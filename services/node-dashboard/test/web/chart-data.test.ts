import { test } from 'tap'
import { formatBytes, formatDuration, formatHashrate, formatInt } from '../../web/src/format.ts'
import { pointsOf, pointTime, rateSeries, seriesOf } from '../../web/src/screens/chart-data.ts'
import { normalizeCatalog } from '../../web/src/screens/rpc-catalog.ts'

test('history points become uPlot columns', async (t) => {
  t.equal(pointTime({ time: '2026-11-21T06:00:00.000Z' }), Date.parse('2026-11-21T06:00:00.000Z') / 1000)
  t.equal(pointTime({ t: 1_795_239_461_000 }), 1_795_239_461)
  t.equal(pointTime({ t: 1_795_239_461 }), 1_795_239_461)
  t.same(seriesOf([{ height: 1 }, { height: null }, { blocks: 3 }], 'height', 'blocks'), [1, null, 3])
})

test('history rows named by fields become points', async (t) => {
  const body = {
    fields: ['t', 'height', 'peers_in'],
    points: [
      [10, 1, null],
      [20, 2, 8],
    ],
  }
  t.same(pointsOf(body), [
    { t: 10, height: 1, peers_in: null },
    { t: 20, height: 2, peers_in: 8 },
  ])
  t.same(seriesOf(pointsOf(body), 'height'), [1, 2])
  t.same(pointsOf({ points: [{ t: 1, height: 5 }] }), [{ t: 1, height: 5 }], 'objects pass as they are')
  t.same(pointsOf({}), [])
  t.same(pointsOf(null), [])
})

test('byte counters turn into rates, with a gap where the node restarted', async (t) => {
  t.same(rateSeries([100, 300, 50, 150], [0, 2, 4, 6]), [null, 100, null, 50])
  t.same(rateSeries([100, null, 200], [0, 1, 2]), [null, null, null])
})

test('the RPC catalog is read from categories or a flat list', async (t) => {
  const nested = normalizeCatalog({
    categories: [{ name: 'Blockchain', methods: [{ name: 'getblockhash', synopsis: 'getblockhash height' }] }],
  })
  t.same(nested, [{ category: 'Blockchain', methods: [{ name: 'getblockhash', synopsis: 'height' }] }])
  const flat = normalizeCatalog([{ name: 'stop', category: 'Control', synopsis: '' }])
  t.same(flat, [{ category: 'Control', methods: [{ name: 'stop', synopsis: '' }] }])
})

test('formats are readable', async (t) => {
  t.equal(formatDuration(93_784), '1 d 2 h')
  t.equal(formatDuration(3_720), '1 h 2 min')
  t.equal(formatDuration(42), '42 s')
  t.equal(formatBytes(30_375), '29.7 KiB')
  t.equal(formatInt(1_234_567), '1,234,567')
  t.equal(formatHashrate(6.5e20), '650 EH/s')
  t.equal(formatDuration(null), '—')
})
