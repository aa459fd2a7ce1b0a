import { test } from 'tap'
import { hostOf, nextSort, type PeerRow, sortPeers } from '../../web/src/peer-sort.ts'

const peer = (id: number, over: Partial<PeerRow>): PeerRow => ({
  id,
  address: `10.0.0.${id}:8333`,
  direction: 'outbound',
  connection_type: 'outbound-full-relay',
  network: 'ipv4',
  subversion: '/Satoshi:30.0.0/',
  version: 70016,
  services_names: [],
  ping_seconds: null,
  bytes_sent: 0,
  bytes_received: 0,
  connected_since: null,
  synced_height: 100,
  ...over,
})

test('peers sort by any column; unknown values last in both directions; ties by id', async (t) => {
  const rows = [
    peer(0, { ping_seconds: 0.2, subversion: '/b/' }),
    peer(1, { ping_seconds: null, subversion: '/a/' }),
    peer(2, { ping_seconds: 0.05, subversion: '/b/' }),
    peer(3, { ping_seconds: 0.2, subversion: '/c/' }),
  ]
  const ids = (key: 'ping_seconds' | 'subversion', ascending: boolean) => sortPeers(rows, { key, ascending }).map((p) => p.id)
  t.same(ids('ping_seconds', true), [2, 0, 3, 1])
  t.same(ids('ping_seconds', false), [0, 3, 2, 1])
  t.same(ids('subversion', true), [1, 0, 2, 3])
  t.same(ids('subversion', false), [3, 0, 2, 1])
  const dated = [peer(5, { connected_since: '2026-11-24T10:00:00Z' }), peer(6, { connected_since: '2026-11-23T10:00:00Z' })]
  t.same(
    sortPeers(dated, { key: 'connected_since', ascending: true }).map((p) => p.id),
    [6, 5],
  )
  t.same(
    rows.map((p) => p.id),
    [0, 1, 2, 3],
    'the input is left as it was',
  )
})

test('a heading pressed twice flips the order; another starts ascending', async (t) => {
  t.same(nextSort({ key: 'id', ascending: true }, 'id'), { key: 'id', ascending: false })
  t.same(nextSort({ key: 'id', ascending: false }, 'ping_seconds'), { key: 'ping_seconds', ascending: true })
})

test('the host of a peer address is what a ban takes', async (t) => {
  t.equal(hostOf('203.0.113.7:8333'), '203.0.113.7')
  t.equal(hostOf('[2001:db8::1]:8333'), '2001:db8::1')
  t.equal(hostOf('2001:db8::1'), '2001:db8::1')
  t.equal(hostOf('abcdef.onion:8333'), 'abcdef.onion')
})
