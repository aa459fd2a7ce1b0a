/**
 * Sets one option of the top section of a bitcoin.conf text (the part before the first [section]),
 * keeping every other line as it is: the last `key=` line there is rewritten (its comment kept), or a
 * line is added before the first section; an empty value removes the key's top-section lines.
 */
export function setTopOption(text: string, key: string, value: string): string {
  const lines = text.split('\n')
  let end = lines.findIndex((line) => line.trim().startsWith('['))
  if (end === -1) end = lines.length
  const keyOf = (line: string) => {
    const code = line.split('#')[0]
    const eq = code.indexOf('=')
    return eq === -1 ? null : code.slice(0, eq).trim()
  }
  const at: number[] = []
  for (let i = 0; i < end; i++) if (keyOf(lines[i]) === key) at.push(i)
  if (value === '') return lines.filter((_, i) => !at.includes(i)).join('\n')
  if (at.length > 0) {
    const i = at[at.length - 1]
    const hash = lines[i].indexOf('#')
    lines[i] = `${key}=${value}${hash === -1 ? '' : ` ${lines[i].slice(hash)}`}`
    return lines.join('\n')
  }
  // After the last non-blank line of the top section.
  let insert = end
  while (insert > 0 && lines[insert - 1].trim() === '') insert--
  lines.splice(insert, 0, `${key}=${value}`)
  return lines.join('\n')
}
