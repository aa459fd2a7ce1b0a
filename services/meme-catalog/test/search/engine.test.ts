import { test } from 'tap'
import { createSearchIndex } from '../../src/search/engine.ts'
import { EmptyQueryError, type SearchDocument } from '../../src/search/types.ts'

const hex = (n: number) => n.toString(16).padStart(64, '0')
const doc = (n: number, caption: string, tags: string[] = [], createdAt = n * 1000): SearchDocument => ({
  id: hex(n),
  caption,
  tags,
  createdAt,
})

function indexOf(...docs: SearchDocument[]) {
  const index = createSearchIndex()
  for (const d of docs) index.upsert(d)
  return index
}

const ids = (index: ReturnType<typeof createSearchIndex>, q?: string, tags?: string[]) =>
  index.search({ q, tags, offset: 0, limit: 100 }).ids

test('terms are case- and accent-insensitive on both sides', async (t) => {
  const index = indexOf(doc(1, 'Crème BRÛLÉE at the café'), doc(2, 'plain creme'), doc(3, 'İstanbul Straße'))
  t.same(ids(index, 'creme').sort(), [hex(1), hex(2)])
  t.same(ids(index, 'CRÉME'), ids(index, 'creme'))
  t.same(ids(index, 'brulee cafe'), [hex(1)])
  t.same(ids(index, 'istanbul'), [hex(3)])
  t.same(ids(index, 'STRASSE'), [], 'ß is a letter of its own, not ss')
  t.same(ids(index, 'straße'), [hex(3)])
  const decomposed = indexOf(doc(1, 'Cre\u0300me bru\u0302le\u0301e'))
  t.same(ids(decomposed, 'crème brûlée'), [hex(1)], 'decomposed (NFD) captions fold the same way')
  t.same(ids(decomposed, 'CRE\u0300ME'), [hex(1)])
})

test('words split on anything that is not a letter or digit', async (t) => {
  const index = indexOf(doc(1, "when-the code's 2nd build_fails!!"), doc(2, 'codes'))
  t.same(ids(index, 'code'), [hex(1), hex(2)], 'exact "code" outranks the prefix match "codes"')
  t.same(ids(index, 'when the 2nd build fails'), [hex(1)])
  t.same(ids(index, 's'), [hex(1)])
})

test('only the last word matches as a prefix, from 3 letters', async (t) => {
  const index = indexOf(doc(1, 'programming cats'), doc(2, 'programmer dogs'), doc(3, 'pro dogs'))
  t.same(ids(index, 'dogs pro').sort(), [hex(2), hex(3)], 'last word "pro" is a prefix of programmer')
  t.same(ids(index, 'pro dogs'), [hex(3)], '"pro" is not last: exact only')
  t.same(ids(index, 'programm').sort(), [hex(1), hex(2)])
  t.same(ids(index, 'pr'), [], 'two letters are matched exactly only')
  t.same(ids(index, 'ca'), [])
  t.same(ids(index, 'cat'), [hex(1)])
})

test('typos allowed by word length: none under 5, 1 for 5-8, 2 for 9+', async (t) => {
  const index = indexOf(doc(1, 'cat'), doc(2, 'kitten'), doc(3, 'spaceship'), doc(4, 'programming'), doc(5, 'dog kitten'))
  t.same(ids(index, 'cot'), [], 'no typo for 3 letters')
  t.same(ids(index, 'kiten'), [hex(2), hex(5)], 'one deletion at 5 letters')
  t.same(ids(index, 'kittne'), [], 'a transposition is two edits')
  t.same(ids(index, 'kitxen'), [hex(2), hex(5)], 'one substitution at 6 letters')
  t.same(ids(index, 'kxtxen'), [], 'two edits at 6 letters')
  t.same(ids(index, 'spacxshxp'), [hex(3)], 'two edits at 9 letters')
  t.same(ids(index, 'spxcxshxp'), [], 'three edits at 9 letters')
  t.same(ids(index, 'progrxmmxng'), [hex(4)])
  t.same(ids(index, 'dog kitt'), [hex(5)], 'last word: prefix')
  t.same(ids(index, 'kitt dog'), [], 'not last, 4 letters: exact only')
  t.same(ids(index, 'kitte dog'), [hex(5)], 'not last, 5 letters: one typo')
})

test('every word must match (AND) and duplicates count once', async (t) => {
  const index = indexOf(doc(1, 'red apple'), doc(2, 'green apple'), doc(3, 'red car'))
  t.same(ids(index, 'red apple'), [hex(1)])
  t.same(ids(index, 'apple red'), [hex(1)])
  t.same(ids(index, 'red red'), [hex(3), hex(1)])
  t.same(ids(index, 'red blue'), [])
})

test("a repeated word keeps each occurrence's own rule: only the last is a prefix", async (t) => {
  const index = indexOf(doc(1, 'the cat'), doc(2, 'them dogs'), doc(3, 'there it is'))
  t.same(ids(index, 'the')[0], hex(1), 'alone and last: exact first')
  t.same(ids(index, 'the').sort(), [hex(1), hex(2), hex(3)], 'then the prefix matches')
  t.same(ids(index, 'the the'), [hex(1)], 'the first "the" must match exactly')
  t.same(ids(index, 'the cat the'), [hex(1)])
  t.same(ids(index, 'them the'), [hex(2)], 'a different exact word, then the prefix')
})

test('tag filters are exact, ANDed and combine with q', async (t) => {
  const index = indexOf(
    doc(1, 'a dog', ['animals', 'funny']),
    doc(2, 'a cat', ['animals']),
    doc(3, 'a dog again', ['funny']),
    doc(4, 'dog', ['animal']),
  )
  t.same(ids(index, undefined, ['animals']), [hex(2), hex(1)], 'newest first')
  t.same(ids(index, undefined, ['animals', 'funny']), [hex(1)])
  t.same(ids(index, undefined, ['Funny']), [hex(3), hex(1)], 'tag names are compared lowercased')
  t.same(ids(index, undefined, ['anim']), [], 'no prefix for tags')
  t.same(ids(index, undefined, ['nope']), [])
  t.same(ids(index, 'dog', ['funny']).sort(), [hex(1), hex(3)])
  t.same(ids(index, 'dog', ['animals', 'funny']), [hex(1)])
  t.same(ids(index, 'funny').sort(), [hex(1), hex(3)], 'tags are searchable words too')
})

test('relevance: exact beats prefix beats typo; ties go newest first, then id desc', async (t) => {
  const index = indexOf(doc(1, 'banana'), doc(2, 'bananas'), doc(3, 'bandna'), doc(4, 'banana'))
  t.same(ids(index, 'banana'), [hex(4), hex(1), hex(2), hex(3)])
  const sameTime = indexOf(doc(1, 'tie', [], 5000), doc(3, 'tie', [], 5000), doc(2, 'tie', [], 5000), doc(4, 'tie', [], 9000))
  t.same(ids(sameTime, 'tie'), [hex(4), hex(3), hex(2), hex(1)])
  t.same(ids(sameTime), [hex(4), hex(3), hex(2), hex(1)], 'listing without q uses the same order')
  const short = indexOf(doc(1, 'common words here', [], 10_000), doc(2, 'common'), doc(3, 'common'))
  t.same(ids(short, 'common'), [hex(3), hex(2), hex(1)], 'BM25: the longer caption ranks lower despite being newest')
})

test('pagination: offset and limit over a stable order, total counts every match', async (t) => {
  const index = createSearchIndex()
  for (let n = 1; n <= 30; n++) index.upsert(doc(n, n % 2 ? 'odd meme' : 'even meme'))
  const page = (q: string | undefined, offset: number, limit: number) => index.search({ q, offset, limit })
  t.same(page(undefined, 0, 3), { total: 30, ids: [hex(30), hex(29), hex(28)] })
  t.same(page(undefined, 28, 5), { total: 30, ids: [hex(2), hex(1)] })
  t.same(page(undefined, 40, 5), { total: 30, ids: [] })
  t.same(page('odd', 0, 2), { total: 15, ids: [hex(29), hex(27)] })
  t.same(page('odd', 14, 12), { total: 15, ids: [hex(1)] })
  const all = page('meme', 0, 30).ids
  const pages = [0, 7, 14, 21, 28].flatMap((offset) => page('meme', offset, 7).ids)
  t.same(pages, all, 'pages concatenate to the full ranking')
  t.same(page('meme', 0, 0), { total: 30, ids: [] })
})

test('a query without a searchable word throws EmptyQueryError', async (t) => {
  const index = indexOf(doc(1, 'hello'))
  for (const q of ['', '   ', '!!! ?', '—', '\u0301']) {
    t.throws(() => index.search({ q, offset: 0, limit: 10 }), EmptyQueryError, JSON.stringify(q))
  }
  t.same(index.search({ offset: 0, limit: 10 }).ids, [hex(1)], 'no q lists everything')
})

test('upsert replaces a document and remove forgets it', async (t) => {
  const index = indexOf(doc(1, 'old caption', ['before']), doc(2, 'other caption'))
  t.equal(index.size, 2)
  index.upsert(doc(1, 'new words', ['after'], 50_000))
  t.equal(index.size, 2)
  t.same(ids(index, 'old'), [])
  t.same(ids(index, 'caption'), [hex(2)])
  t.same(ids(index, 'new'), [hex(1)])
  t.same(ids(index, undefined, ['before']), [])
  t.same(ids(index, undefined, ['after']), [hex(1)])
  t.same(ids(index), [hex(1), hex(2)], 'the new createdAt moves it to the top')
  index.remove(hex(1))
  index.remove(hex(99))
  t.notOk(index.has(hex(1)))
  t.ok(index.has(hex(2)))
  t.same(ids(index, 'new'), [])
  t.same(ids(index), [hex(2)])
  t.same(index.search({ offset: 0, limit: 10 }).total, 1)
  index.upsert(doc(3, 'reuses the freed slot', [], 1))
  t.same(ids(index), [hex(2), hex(3)])
  t.same(ids(index, 'slot'), [hex(3)])
  index.clear()
  t.equal(index.size, 0)
  t.same(index.search({ q: 'slot', offset: 0, limit: 10 }), { total: 0, ids: [] })
  t.same(index.search({ offset: 0, limit: 10 }), { total: 0, ids: [] })
  index.upsert(doc(4, 'after clear'))
  t.same(ids(index, 'clear'), [hex(4)])
})

test('get gives the document object as indexed, through replacement, removal, batches and clear', async (t) => {
  const index = createSearchIndex()
  const first = doc(1, 'first words')
  const second = doc(2, 'second words')
  index.upsertMany([first, second])
  t.equal(index.get(hex(1)), first, 'the very object given, not a copy')
  t.equal(index.get(hex(2)), second)
  t.equal(index.get(hex(3)), undefined)
  const replaced = doc(1, 'replaced')
  index.upsert(replaced)
  t.equal(index.get(hex(1)), replaced)
  index.remove(hex(2))
  t.equal(index.get(hex(2)), undefined)
  const reusing = doc(3, 'takes the freed slot')
  index.upsert(reusing)
  t.equal(index.get(hex(3)), reusing)
  t.equal(index.get(hex(2)), undefined, 'the freed slot answers only for its new id')
  const again = doc(3, 'repeated in one batch')
  index.upsertMany([doc(4, 'four'), again])
  t.equal(index.get(hex(3)), again, 'an id already indexed is replaced by the batch')
  index.clear()
  t.equal(index.get(hex(1)), undefined)
  t.equal(index.get(hex(4)), undefined)
})

test('accented words: repeated runs, case variants, and a run seen again after its term was dropped', async (t) => {
  const index = createSearchIndex()
  index.upsertMany([doc(1, 'Crème brûlée'), doc(2, 'CRÈME au café'), doc(3, 'crème—brûlée again')])
  // Sorted: which documents match is the point here, not their relevance order.
  t.same(ids(index, 'creme').sort(), [hex(1), hex(2), hex(3)], 'every spelling folds to the same word')
  t.same(ids(index, 'brulee').sort(), [hex(1), hex(3)], 'a run holding two words (a dash outside ASCII) gives both')
  t.same(ids(index, 'cafe'), [hex(2)])
  for (const n of [1, 2, 3]) index.remove(hex(n))
  t.same(ids(index, 'creme'), [])
  index.upsert(doc(4, 'crème again'))
  index.upsertMany([doc(5, 'Crème brûlée')])
  t.same(ids(index, 'creme').sort(), [hex(4), hex(5)], 'the runs seen before the drop index into the live lists')
  t.same(ids(index, 'brulee'), [hex(5)])
  t.same(
    index.complete('cre', 5).map((c) => [c.value, c.count]),
    [['creme', 2]],
  )
})

test('listing follows arrivals, replacements and removals at either end', async (t) => {
  const index = createSearchIndex()
  const expected: number[] = []
  for (let n = 1; n <= 40; n++) {
    index.upsert(doc(n, `meme ${n}`))
    expected.unshift(n)
    // Listing between arrivals: the newest is appended without a merge.
    t.same(ids(index), expected.map(hex), `after arrival ${n}`)
  }
  index.remove(hex(40))
  expected.shift()
  t.same(ids(index), expected.map(hex), 'newest removed')
  index.remove(hex(1))
  expected.pop()
  t.same(ids(index), expected.map(hex), 'oldest removed')
  index.upsert(doc(20, 'meme twenty again', [], 20_000))
  t.same(ids(index), expected.map(hex), 'replaced in place (same createdAt)')
  index.upsert(doc(0, 'older than all', [], -5))
  index.upsert(doc(41, 'newest again', [], 41_000))
  index.upsert(doc(17, 'moved to the top', [], 99_000))
  const reordered = [17, 41, ...expected.filter((n) => n !== 17), 0]
  t.same(ids(index), reordered.map(hex), 'merged after out-of-order changes')
  t.same(index.search({ offset: 10, limit: 3 }), { total: reordered.length, ids: reordered.slice(10, 13).map(hex) })
})

test('settle sorts what waits for the next listing, and says whether anything did', async (t) => {
  const index = createSearchIndex()
  t.equal(index.settle(), false, 'an empty index is in order')
  index.upsertMany([doc(3, 'three'), doc(1, 'one'), doc(2, 'two')])
  t.equal(index.settle(), true, 'arrivals out of order waited')
  t.equal(index.settle(), false, 'nothing waits after a settle')
  t.same(ids(index), [3, 2, 1].map(hex), 'newest first')
  t.same(index.search({ order: 'trending', offset: 0, limit: 10 }).ids, [3, 2, 1].map(hex), 'trending ties go newest first')
  index.upsert(doc(4, 'four'))
  t.equal(index.settle(), false, 'the newest arrival is appended, not kept for later')
  index.setTrending(hex(1), 5)
  t.equal(index.settle(), true, 'a trending change waited')
  t.same(index.search({ order: 'trending', offset: 0, limit: 10 }).ids, [1, 4, 3, 2].map(hex))
  index.remove(hex(3))
  t.equal(index.settle(), true, 'a removal in the middle waited')
  t.same(ids(index), [4, 2, 1].map(hex))
})
