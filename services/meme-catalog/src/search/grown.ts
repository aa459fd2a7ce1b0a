/** `to` holding `from` at its start: a typed array grown into a larger one the caller sized. */
export function grown<T extends Int32Array | Uint16Array>(from: T, to: T): T {
  to.set(from)
  return to
}
