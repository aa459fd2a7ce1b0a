/**
 * Search by image at scale: lookups in the perceptual-hash index (multi-index hashing) against a linear scan of the
 * same hashes in the same run, and the read model's `similar()` (lookup, sort, wire records) at 100,000 memes.
 * CPU time per lookup (process.cpuUsage), so a loaded machine slows the wall clock, not the figures.
 * Prints a table with PASS/FAIL per target and writes its section of bench/RESULTS.md.
 *
 *   node --import tsx services/meme-catalog/bench/similar.ts [--memes 100000] [--queries 2000]
 */
import { readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { PublicMemeRecord } from '../src/memes/repository.ts'
import { ReadModel } from '../src/search/read-model.ts'
import { PerceptualHashIndex } from '../src/similar/hash-index.ts'
import { DEFAULT_SIMILAR_DISTANCE, DEFAULT_SIMILAR_LIMIT } from '../src/similar/schemas.ts'
import { createRandom } from './corpus.ts'

const { values } = parseArgs({
  options: { memes: { type: 'string', default: '100000' }, queries: { type: 'string', default: '2000' } },
})
const memes = Number(values.memes)
const queryCount = Number(values.queries)
const random = createRandom(42)
const hex32 = () =>
  Math.floor(random() * 2 ** 32)
    .toString(16)
    .padStart(8, '0')
const randomHash = () => hex32() + hex32()

/** `base` with `bits` random bits flipped: a re-encoded or resized copy of the same picture. */
function nearHash(base: string, bits: number): string {
  let value = BigInt(`0x${base}`)
  for (let i = 0; i < bits; i++) value ^= 1n << BigInt(Math.floor(random() * 64))
  return value.toString(16).padStart(16, '0')
}

// A catalog with families of near copies (a third of the memes) among unrelated pictures.
const hashes: string[] = []
for (let n = 0; n < memes; n++)
  hashes.push(n % 3 === 0 && n > 0 ? nearHash(hashes[n - 3], Math.floor(random() * 6)) : randomHash())
const queries: string[] = []
for (let q = 0; q < queryCount; q++) {
  queries.push(q % 2 === 0 ? nearHash(hashes[Math.floor(random() * memes)], Math.floor(random() * 5)) : randomHash())
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since)
  return (user + system) / 1000
}

/** CPU milliseconds of each call, sorted, and the matches found in all. */
function measure(run: (query: string) => number): { sorted: number[]; total: number; found: number } {
  for (let i = 0; i < Math.min(200, queries.length); i++) run(queries[i])
  const times: number[] = []
  let found = 0
  const all = process.cpuUsage()
  for (const query of queries) {
    const cpu = process.cpuUsage()
    found += run(query)
    times.push(cpuMs(cpu))
  }
  const total = cpuMs(all)
  return { sorted: times.sort((a, b) => a - b), total, found }
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]
const ms = (value: number) => `${value < 0.1 ? value.toFixed(3) : value.toFixed(2)} ms`

const buildCpu = process.cpuUsage()
const index = new PerceptualHashIndex()
for (let n = 0; n < memes; n++) index.set(`m${n}`, hashes[n])
const indexBuildMs = cpuMs(buildCpu)

const rows: string[] = []
const targets: { name: string; measured: string; ok: boolean | null }[] = []
for (const radius of [DEFAULT_SIMILAR_DISTANCE, 12]) {
  const mih = measure((q) => index.within(q, radius).length)
  const scan = measure((q) => index.scan(q, radius).length)
  if (mih.found !== scan.found) throw new Error(`index and scan disagree at radius ${radius}: ${mih.found} vs ${scan.found}`)
  const meanMih = mih.total / queries.length
  const meanScan = scan.total / queries.length
  rows.push(
    `| index, radius ${radius} | ${ms(meanMih)} | ${ms(pct(mih.sorted, 50))} | ${ms(pct(mih.sorted, 99))} | ${mih.found} |`,
    `| linear scan, radius ${radius} | ${ms(meanScan)} | ${ms(pct(scan.sorted, 50))} | ${ms(pct(scan.sorted, 99))} | ${scan.found} |`,
  )
  targets.push({
    name: `index lookup p99 < 10 ms (radius ${radius})`,
    measured: ms(pct(mih.sorted, 99)),
    ok: pct(mih.sorted, 99) < 10,
  })
  // The default radius is the target; the largest one is reported (its probes cost more, its matches are rarer).
  const isDefault = radius === DEFAULT_SIMILAR_DISTANCE
  targets.push({
    name: `index ${isDefault ? '>= 10x' : 'vs'} a linear scan (radius ${radius}, mean CPU${isDefault ? '' : ', informative'})`,
    measured: `${(meanScan / meanMih).toFixed(1)}x`,
    ok: isDefault ? meanScan / meanMih >= 10 : null,
  })
}

// The read model as the route uses it: the lookup, the order (distance, newest) and the wire records.
async function* records(): AsyncGenerator<PublicMemeRecord[]> {
  let batch: PublicMemeRecord[] = []
  for (let n = 0; n < memes; n++) {
    batch.push({
      id: n.toString(16).padStart(64, '0'),
      createdAt: 1_700_000_000_000 + n * 1000,
      byteSize: 20_000,
      width: 640,
      height: 480,
      originalMime: 'image/png',
      originalName: 'meme.png',
      moderationScore: 3,
      moderationReason: 'Deciding class Neutral at 97.0%',
      viewCount: 0,
      downloadCount: 0,
      demo: false,
      caption: '',
      tags: [],
      phash: hashes[n],
    })
    if (batch.length === 10_000) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}
const model = await ReadModel.build(records())
if (model.hashedSize !== memes) throw new Error(`read model holds ${model.hashedSize} hashes, not ${memes}`)
const routeLike = measure((q) => model.similar(q, DEFAULT_SIMILAR_DISTANCE, DEFAULT_SIMILAR_LIMIT).length)
rows.push(
  `| read model similar(), radius ${DEFAULT_SIMILAR_DISTANCE}, limit ${DEFAULT_SIMILAR_LIMIT} | ${ms(routeLike.total / queries.length)} | ${ms(pct(routeLike.sorted, 50))} | ${ms(pct(routeLike.sorted, 99))} | ${routeLike.found} |`,
)
targets.push({
  name: 'read model similar() p99 < 10 ms',
  measured: ms(pct(routeLike.sorted, 99)),
  ok: pct(routeLike.sorted, 99) < 10,
})

const verdict = (ok: boolean | null) => (ok === null ? '' : ok ? 'PASS' : 'FAIL')
const load = os.loadavg()[0].toFixed(1)
const text = `## Search by image (\`bench/similar.ts\`)

Run ${new Date().toISOString()} on ${os.cpus().length} cores, Node ${process.version}, load average ${load}.
${memes.toLocaleString('en')} perceptual hashes (a third in families of near copies, up to 5 bits apart), ${queryCount} queries
(half near a stored hash, half unrelated). Index built in ${indexBuildMs.toFixed(0)} ms CPU. Figures are CPU time per lookup.

| lookup | mean | p50 | p99 | matches in all |
|---|---|---|---|---|
${rows.join('\n')}

| target | measured | result |
|---|---|---|
${targets.map((t) => `| ${t.name} | ${t.measured} | ${verdict(t.ok)} |`).join('\n')}

The linear scan is the same hashes in the same typed arrays compared one by one (what a BK-tree or index replaces);
both answer the same matches (checked in the run). The route adds the image's decode and hash (\`bench/upload.ts\`
measures decoding) to the read-model figure.
`
console.log(text)

/** Replaces this bench's section of RESULTS.md, or puts it after the search results. */
const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'RESULTS.md')
const current = await readFile(file, 'utf8')
const heading = '## Search by image'
const start = current.indexOf(heading)
if (start >= 0) {
  const next = current.indexOf('\n## ', start + heading.length)
  await writeFile(file, `${current.slice(0, start)}${text}${next < 0 ? '' : current.slice(next)}`)
} else {
  const after = current.indexOf('\n## ')
  await writeFile(
    file,
    after < 0 ? `${current.trimEnd()}\n\n${text}` : `${current.slice(0, after + 1)}${text}\n${current.slice(after + 1)}`,
  )
}
if (targets.some((t) => t.ok === false)) process.exitCode = 1
