/**
 * Term ids by text, looked up straight from the characters of an ASCII text: indexing a caption then makes no
 * substring and hashes no string per word (at a million captions those were most of the build time and of
 * its garbage). Open addressing on typed arrays, each entry with its own copy of the term's characters: a hit
 * compares them without reaching the term's string through its postings (a cache miss or two per word).
 */
export class TermTable {
  /** id + 1 per cell; 0 is empty, -1 a deleted entry. */
  private cells = new Int32Array(1024)
  private hashes = new Int32Array(1024)
  /** Where each cell's characters start in chars, and how many there are. */
  private starts = new Int32Array(1024)
  private lengths = new Int32Array(1024)
  private chars = new Uint16Array(4096)
  private charsEnd = 0
  private used = 0

  /** FNV-1a of a term's characters. */
  static hash(term: string): number {
    let h = 0x811c9dc5
    for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193)
    return h
  }

  /**
   * The id of the term equal to lowercased text[start, end) whose hash is `hash` (see scanText), or -1.
   */
  find(text: string, start: number, end: number, hash: number): number {
    const { cells, hashes, lengths } = this
    const mask = cells.length - 1
    const length = end - start
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const cell = cells[i]
      if (cell === 0) return -1
      if (cell > 0 && hashes[i] === hash && lengths[i] === length && this.matches(this.starts[i], text, start, length)) {
        return cell - 1
      }
    }
  }

  insert(term: string, id: number): void {
    if ((this.used + 1) * 2 > this.cells.length) this.rehash()
    if (this.charsEnd + term.length > this.chars.length) {
      const chars = new Uint16Array(Math.max(this.chars.length * 2, this.charsEnd + term.length))
      chars.set(this.chars.subarray(0, this.charsEnd))
      this.chars = chars
    }
    const hash = TermTable.hash(term)
    const mask = this.cells.length - 1
    let i = hash & mask
    while (this.cells[i] !== 0) i = (i + 1) & mask
    this.cells[i] = id + 1
    this.hashes[i] = hash
    this.starts[i] = this.charsEnd
    this.lengths[i] = term.length
    for (let k = 0; k < term.length; k++) this.chars[this.charsEnd++] = term.charCodeAt(k)
    this.used++
  }

  delete(term: string, id: number): void {
    const hash = TermTable.hash(term)
    const mask = this.cells.length - 1
    for (let i = hash & mask; this.cells[i] !== 0; i = (i + 1) & mask) {
      if (this.cells[i] === id + 1) {
        // A marker, not a hole: later entries of the same probe run must stay reachable.
        this.cells[i] = -1
        return
      }
    }
  }

  private matches(from: number, text: string, start: number, length: number): boolean {
    const chars = this.chars
    for (let i = 0; i < length; i++) {
      let c = text.charCodeAt(start + i)
      if (c >= 65 && c <= 90) c += 32
      if (chars[from + i] !== c) return false
    }
    return true
  }

  /** Doubles when live entries fill a quarter (deleted markers and their characters are dropped). */
  private rehash(): void {
    const { cells: old, hashes: oldHashes, starts: oldStarts, lengths: oldLengths, chars: oldChars } = this
    let live = 0
    let liveChars = 0
    for (let i = 0; i < old.length; i++) {
      if (old[i] <= 0) continue
      live++
      liveChars += oldLengths[i]
    }
    const size = live * 4 > old.length ? old.length * 2 : old.length
    this.cells = new Int32Array(size)
    this.hashes = new Int32Array(size)
    this.starts = new Int32Array(size)
    this.lengths = new Int32Array(size)
    this.chars = new Uint16Array(Math.max(4096, liveChars * 2))
    let end = 0
    const mask = size - 1
    for (let i = 0; i < old.length; i++) {
      if (old[i] <= 0) continue
      let j = oldHashes[i] & mask
      while (this.cells[j] !== 0) j = (j + 1) & mask
      this.cells[j] = old[i]
      this.hashes[j] = oldHashes[i]
      this.starts[j] = end
      this.lengths[j] = oldLengths[i]
      this.chars.set(oldChars.subarray(oldStarts[i], oldStarts[i] + oldLengths[i]), end)
      end += oldLengths[i]
    }
    this.charsEnd = end
    this.used = live
  }
}

/**
 * What the non-ASCII runs already seen fold to, looked up from the run's characters as TermTable looks up ASCII
 * words: captions in a language with accents then make no substring, split or normalization per repeated word.
 * Bounded; the owner clears it when a value it holds may have gone stale.
 */
export class FoldedRuns<T> {
  private table = new TermTable()
  private keys: string[] = []
  private values: T[][] = []

  constructor(private readonly limit: number) {}

  /** The values recorded for text[start, end) (ASCII letters compared lowercased), hashed as scanText does. */
  find(text: string, start: number, end: number, hash: number): T[] | undefined {
    const id = this.table.find(text, start, end, hash)
    return id >= 0 ? this.values[id] : undefined
  }

  add(run: string, values: T[]): void {
    if (this.keys.length >= this.limit) return
    // Stored as find compares and scanText hashes: ASCII letters lowercased, other characters as they are.
    const key = run.replace(/[A-Z]/g, (letter) => letter.toLowerCase())
    this.keys.push(key)
    this.values.push(values)
    this.table.insert(key, this.keys.length - 1)
  }

  clear(): void {
    if (this.keys.length === 0) return
    this.table = new TermTable()
    this.keys = []
    this.values = []
  }
}

/** Greek capital sigma: the one letter whose lowercase depends on its neighbours (final form). */
const CAPITAL_SIGMA_CHAR = '\u03a3'

/**
 * The words of one text for the index, in order, as the TermSink's calls: ASCII words by their position and
 * hash (no substring), words with other characters as tokenize's folded terms. Runs between ASCII separators
 * are tokenized alone, except in a text with a capital sigma (lowercased in its context, so whole).
 */
export interface TermSink {
  asciiWord(text: string, start: number, end: number, hash: number): void
  /** A run with characters outside ASCII (one or more words once folded), hashed like an ASCII word. */
  otherRun(text: string, start: number, end: number, hash: number): void
  foldedWord(term: string): void
}

export function scanText(text: string, sink: TermSink, fold: (text: string) => string[]): void {
  if (text.indexOf(CAPITAL_SIGMA_CHAR) >= 0) {
    for (const term of fold(text)) sink.foldedWord(term)
    return
  }
  let start = -1
  let h = 0
  let ascii = true
  for (let i = 0; i <= text.length; i++) {
    let c = i < text.length ? text.charCodeAt(i) : 32
    if (c >= 65 && c <= 90) c += 32
    // Outside ASCII, whether a character is a letter is tokenize's business: it joins the run.
    const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c > 127
    if (word) {
      if (start < 0) {
        start = i
        h = 0x811c9dc5
        ascii = true
      }
      if (c > 127) ascii = false
      h = Math.imul(h ^ c, 0x01000193)
    } else if (start >= 0) {
      if (ascii) sink.asciiWord(text, start, i, h)
      else sink.otherRun(text, start, i, h)
      start = -1
    }
  }
}
