import { MAX_CAPTION_LENGTH } from '../../memes/schemas.ts'

/** C0 controls and DEL except tab, line feed and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
export const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g

/** Cuts to `max` characters as PostgreSQL and JSON Schema count them (code points, not UTF-16 units). */
export function clampCaption(text: string, max = MAX_CAPTION_LENGTH): string {
  // Control characters (NUL above all: PostgreSQL text refuses it) never reach the database.
  const trimmed = text.replace(CONTROL_CHARACTERS, ' ').trim()
  if (trimmed.length <= max) return trimmed
  const points = Array.from(trimmed)
  return points.length <= max ? trimmed : points.slice(0, max).join('').trimEnd()
}

const fold = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()

/**
 * OCR output to a caption: one line per text line joined by spaces, runs of whitespace collapsed,
 * and lines that are mostly specks (few letters or digits) dropped.
 */
export function cleanOcrText(raw: string): string {
  const lines: string[] = []
  for (const line of raw.split(/\r?\n/)) {
    const text = line.replace(/[\s\u00a0]+/g, ' ').trim()
    const alnum = text.match(/[\p{L}\p{N}]/gu)?.length ?? 0
    if (alnum < 2 || alnum / text.replace(/ /g, '').length < 0.6) continue
    lines.push(text)
  }
  return clampCaption(lines.join(' '))
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Catalog tags whose name appears in `text` as a whole word (case- and accent-insensitive). */
export function tagsInText(text: string, catalog: string[]): string[] {
  const haystack = fold(text)
  const found: string[] = []
  for (const tag of catalog) {
    const needle = fold(tag).trim()
    if (!needle) continue
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(needle).replace(/\s+/g, '\\s+')}(?![\\p{L}\\p{N}])`, 'u')
    if (pattern.test(haystack)) found.push(tag)
  }
  return found
}

/** Lowercased, trimmed, unique names that exist in the catalog; everything else is dropped. */
export function keepCatalogTags(tags: unknown[], catalog: string[]): string[] {
  const known = new Set(catalog)
  const kept = new Set<string>()
  for (const tag of tags) {
    if (typeof tag !== 'string') continue
    const name = tag.normalize('NFC').trim().toLowerCase()
    if (known.has(name)) kept.add(name)
  }
  return [...kept]
}
