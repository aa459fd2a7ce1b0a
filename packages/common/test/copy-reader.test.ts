import { createTestDatabase } from '@app/testing'
import { test } from 'tap'
import { CopyTextReader, copyText, openDatabase } from '../src/db/index.ts'

/** Every row of `chunks` as the reader's fields read back as text (null for NULL). */
function readAll(chunks: Uint8Array[], read = (r: CopyTextReader, i: number): unknown => r.text(i)): unknown[][] {
  const reader = new CopyTextReader()
  const rows: unknown[][] = []
  for (const chunk of chunks) {
    reader.push(chunk)
    while (reader.next()) rows.push(Array.from({ length: reader.fieldCount }, (_, i) => read(reader, i)))
  }
  reader.end()
  return rows
}

/** The bytes cut at every position in turn: a row, a field, an escape or a UTF-8 character split over chunks. */
function everySplit(bytes: Buffer): Uint8Array[][] {
  return Array.from({ length: bytes.length + 1 }, (_, at) => [bytes.subarray(0, at), bytes.subarray(at)])
}

test('fields, NULLs, escapes and unicode read back as written, however the bytes are split', async (t) => {
  const values = [
    ['plain', '', null, 'tab\there', 'new\nline', 'cr\rreturn', 'back\\slash', '\\N as text', 'é ü 😀 中文', 'a"quoted"'],
    ['x', 'trailing tab\t', '\t', '\n', '\\', 'N', '\u0001control', 'ü', 'last', null],
  ]
  const text = values.map((row) => row.map(copyText).join('\t')).join('\n') + '\n'
  const bytes = Buffer.from(text)
  t.same(readAll([bytes]), values, 'one chunk')
  let differing = 0
  for (const chunks of everySplit(bytes)) if (JSON.stringify(readAll(chunks)) !== JSON.stringify(values)) differing++
  t.equal(differing, 0, `all ${bytes.length + 1} two-chunk splits read the same`)
  const byteByByte = [...bytes].map((b) => Uint8Array.of(b))
  t.same(readAll(byteByByte), values, 'one byte a chunk')
})

test('the escapes PostgreSQL may write, octal and hex ones included', async (t) => {
  const row = Buffer.from('a\\bb\\fc\\vd\\101\\x42\\x4a\\7z\\q\n')
  t.same(readAll([row]), [['a\bb\fc\vdABJ\u0007zq']])
  t.same(readAll([Buffer.from('\\N\t\\\\N\n')]), [[null, '\\N']], 'NULL only when the whole field is \\N')
})

test('numbers, booleans and text arrays', async (t) => {
  const rows = Buffer.from(
    [
      '0\t-42\t1732406400000\t3.5\tt\t{}',
      '9007199254740991\t+7\t-0\t-1.25e3\tf\t{a,b-c,"d e","f\\\\"g","h\\\\\\\\i",é,"",NULL_ISH,"{x}"}',
      '\\N\t\\N\t\\N\t\\N\t\\N\t\\N',
    ].join('\n') + '\n',
  )
  const reader = new CopyTextReader()
  reader.push(rows)
  t.ok(reader.next())
  t.same(
    [reader.integer(0), reader.integer(1), reader.integer(2), reader.number(3), reader.boolean(4)],
    [0, -42, 1732406400000, 3.5, true],
  )
  t.same(reader.textArray(5), [])
  t.ok(reader.next())
  t.same(
    [reader.integer(0), reader.integer(1), reader.integer(2), reader.number(3), reader.boolean(4)],
    [9007199254740991, 7, -0, -1250, false],
  )
  t.same(reader.textArray(5), ['a', 'b-c', 'd e', 'f"g', 'h\\i', 'é', '', 'NULL_ISH', '{x}'])
  t.ok(reader.next())
  t.same([reader.text(0), reader.isNull(5), reader.textArray(5)], [null, true, null])
  t.throws(() => reader.integer(0), /NULL/, 'a NULL is no number')
  t.notOk(reader.next(), 'no more rows')
  reader.end()

  const bad = new CopyTextReader()
  bad.push(Buffer.from('12x\t1.5.5\tyes\t{a,NULL}\t{{a},{b}}\t{"open\n'))
  t.ok(bad.next())
  t.throws(() => bad.integer(0), /integer/)
  t.throws(() => bad.number(1), /number/)
  t.throws(() => bad.boolean(2), /boolean/)
  t.throws(() => bad.textArray(3), /NULL element/)
  t.throws(() => bad.textArray(4), /one-dimensional/)
  t.throws(() => bad.textArray(5), /array/)
  t.throws(() => bad.text(6), /no field 6/)
})

test('an unfinished last row is an error at the end', async (t) => {
  const reader = new CopyTextReader()
  reader.push(Buffer.from('a\tb\nc\td'))
  t.ok(reader.next())
  t.notOk(reader.next(), 'the second row waits for its newline')
  t.throws(() => reader.end(), /incomplete/)
})

test('copyTo streams a query through COPY TO and the reader reads it back exactly', async (t) => {
  const target = await createTestDatabase()
  const db = await openDatabase({ url: target.url, dataDir: `${target.dataDir}/pg` })
  t.teardown(async () => {
    await db.close()
    await target.cleanup()
  })
  await db.exec(
    'CREATE TABLE notes (id int PRIMARY KEY, body text, tags text[] NOT NULL, at timestamptz NOT NULL, flag boolean, ratio float8)',
  )
  const bodies = ['plain', 'tab\tand\nnewline', 'back\\slash \\N', 'é ü 😀 中文', null, '"quoted", {braced}']
  const tagSets = [[], ['a'], ['with space', 'quote"d', 'back\\slash', 'comma,', 'é'], ['NULL', 'null']]
  const count = 5000
  async function* rows() {
    for (let i = 0; i < count; i++) {
      const tags = `{${tagSets[i % tagSets.length].map((tag) => `"${tag.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`
      yield [i, bodies[i % bodies.length], tags, new Date(1_700_000_000_000 + i * 1001).toISOString(), i % 3 === 0, i / 8]
        .map(copyText)
        .join('\t')
    }
  }
  t.equal(await db.copyFrom('notes', ['id', 'body', 'tags', 'at', 'flag', 'ratio'], rows()), count)
  const reader = new CopyTextReader()
  let read = 0
  let differing = 0
  let chunks = 0
  for await (const chunk of db.copyTo(
    'SELECT id, body, tags, (extract(epoch FROM at) * 1000)::int8, flag, ratio FROM notes ORDER BY id',
  )) {
    chunks++
    reader.push(chunk)
    while (reader.next()) {
      const i = read++
      const got = [reader.integer(0), reader.text(1), reader.textArray(2), reader.integer(3), reader.boolean(4), reader.number(5)]
      const want = [i, bodies[i % bodies.length], tagSets[i % tagSets.length], 1_700_000_000_000 + i * 1001, i % 3 === 0, i / 8]
      if (JSON.stringify(got) !== JSON.stringify(want)) differing++
    }
  }
  reader.end()
  t.equal(read, count, `every row read back (${chunks} chunks)`)
  t.equal(differing, 0, 'every value identical')

  // Inside a transaction, and a consumer stopping early leaves the database usable.
  await db.transaction(async (tx) => {
    for await (const chunk of tx.copyTo('SELECT id FROM notes ORDER BY id')) {
      t.ok(chunk.length > 0)
      break
    }
    const { rows: after } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM notes')
    t.equal(after[0].n, count, 'the transaction still answers after an early stop')
  })
  for await (const _ of db.copyTo('SELECT id FROM notes')) break
  const { rows: again } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notes')
  t.equal(again[0].n, count)
  await t.rejects(async () => {
    for await (const _ of db.copyTo('SELECT no_such_column FROM notes')) {
    }
  }, 'a failing query rejects')
})
