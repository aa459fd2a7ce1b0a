import { test } from 'tap'
import { joinPoints, rollupWidth, slotOf, timeOrder } from '../../src/history/repository.ts'

test('slotOf: equal slices of the window, the end clamped into the last one', async (t) => {
  t.equal(slotOf(100, 100, 10, 5), 0)
  t.equal(slotOf(119.9, 100, 10, 5), 1)
  t.equal(slotOf(150, 100, 10, 5), 4, 'the window end belongs to the last bucket')
  t.equal(slotOf(99, 100, 10, 5), 0, 'a row starting before the window goes to the first')
})

test('joinPoints: time order whatever the input order; shared buckets give their merged point once', async (t) => {
  const join = (points: string[], times: number[], slots: number[], merged = new Map<number, string>()) =>
    joinPoints(points, timeOrder(times), slots, merged)
  t.equal(join(['[3]', '[1]', '[2]'], [3, 1, 2], [2, 0, 1]), '[[1],[2],[3]]')
  t.equal(join(['[3]', '[1.5]', '[1]'], [3, 1.5, 1], [1, 0, 0], new Map([[0, '[1.25]']])), '[[1.25],[3]]')
  t.equal(join(['[1]', '[2]', '[3]', '[4]'], [1, 2, 3, 4], [0, 1, 1, 1], new Map([[1, '[3]']])), '[[1],[3]]')
  t.equal(join([], [], []), '[]')
  t.throws(() => join(['[1]', '[2]'], [1, 2], [0, 0]), /no merged point/)
})

test('timeOrder: the identity when sorted, else ascending indexes', async (t) => {
  t.same(timeOrder([1, 2, 3]), [0, 1, 2])
  t.same(timeOrder([5, 1, 3]), [1, 2, 0])
})

test('rollupWidth: samples up to 6 hours or for narrow buckets, else the narrowest rollup a bucket wide', async (t) => {
  t.equal(rollupWidth(6 * 3600, 100), null)
  t.equal(rollupWidth(86400, 30), null)
  t.equal(rollupWidth(86400, 60), 60)
  t.equal(rollupWidth(15e6, 750), 1200)
  t.equal(rollupWidth(1e9, 1e6), 86400, 'wider than every rollup: the widest')
})
