/**
 * Reads a fetch response's body as UTF-8 text, up to `maxBytes`: a larger body is cancelled as soon as it
 * passes the cap and gives null, so a hostile upstream cannot fill memory. No body reads as ''.
 */
export async function readCappedText(response: Response, maxBytes: number): Promise<string | null> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      return null
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}
