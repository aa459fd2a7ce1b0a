import { grown } from './grown.ts'
import type { Postings } from './postings.ts'
import type { TermSink } from './terms.ts'
import type { Vocabulary } from './vocabulary.ts'

/**
 * The term ids of the document being added, as scanText finds its words: each text term's id once per
 * occurrence in a batch (PostingsBatch makes them frequencies), else once, as the slot joins its list.
 */
export class DocumentTerms implements TermSink {
  /** Term ids so far, in ids[0, count) (grown as needed: read it after the document). */
  ids = new Int32Array(256)
  count = 0
  /** Words of the document's text so far: its length for scoring. */
  length = 0
  /** Set while upsertMany gathers a batch: terms go to the batch, lists grow when it is flushed. */
  batching = false
  private slot = 0

  constructor(private readonly vocabulary: Vocabulary) {}

  /** Starts the terms of the document taking `slot`. */
  start(slot: number): void {
    this.slot = slot
    this.count = 0
    this.length = 0
  }

  push(id: number): void {
    const n = this.count
    if (n === this.ids.length) this.ids = grown(this.ids, new Int32Array(n * 2))
    this.ids[n] = id
    this.count = n + 1
  }

  /** TermSink: one word of the document being added. */
  asciiWord(text: string, start: number, end: number, hash: number): void {
    const id = this.vocabulary.findAscii(text, start, end, hash)
    // A batch needs only the id: the list itself is not read (most words hit the table).
    if (id >= 0 && this.batching) {
      this.push(id)
      this.length++
    } else {
      const vocabulary = this.vocabulary
      this.add(id >= 0 ? (vocabulary.byId[id] as Postings) : vocabulary.textPostings(text.slice(start, end).toLowerCase()))
    }
  }

  foldedWord(term: string): void {
    this.add(this.vocabulary.textPostings(term))
  }

  otherRun(text: string, start: number, end: number, hash: number): void {
    for (const list of this.vocabulary.runPostings(text, start, end, hash)) this.add(list)
  }

  private add(postings: Postings): void {
    // A batch counts every occurrence; outside one the slot joins the list now.
    if (this.batching) this.push(postings.id)
    else if (postings.add(this.slot)) this.push(postings.id)
    this.length++
  }
}
