// Bitcoin Core's UniValue writer, byte for byte where it differs from JSON.stringify:
// amounts print with 8 decimals and doubles with 16 significant digits (two-digit exponents).

/** A BTC amount held in satoshis; written like Core's ValueFromAmount ("49.99998590"). */
export class Amount {
  constructor(readonly sats: number) {}
  toString(): string {
    const sign = this.sats < 0 ? '-' : ''
    const abs = Math.abs(this.sats)
    return `${sign}${Math.floor(abs / 1e8)}.${String(abs % 1e8).padStart(8, '0')}`
  }
}

export const sats = (n: number) => new Amount(n)

/** A double as C++ `ostream << setprecision(16)` prints it (%g rules). */
export function formatDouble(x: number): string {
  if (!Number.isFinite(x)) return 'null'
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return String(x)
  const [mantissa, exp] = x.toExponential(15).split('e')
  const exponent = Number(exp)
  const strip = (s: string) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s)
  if (exponent < -4 || exponent >= 16) {
    return `${strip(mantissa)}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`
  }
  return strip(x.toFixed(Math.max(0, 15 - exponent)))
}

export type UniValue = null | boolean | number | string | Amount | UniValue[] | { [key: string]: UniValue | undefined }

/** Compact form, as on the wire. */
export function write(value: UniValue): string {
  if (value === null || value === undefined) return 'null'
  if (value instanceof Amount) return value.toString()
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : formatDouble(value)
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(write).join(',')}]`
  const parts: string[] = []
  for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(`${JSON.stringify(k)}:${write(v)}`)
  return `{${parts.join(',')}}`
}

/** UniValue::write(4) for the "Wrong type passed" object (flat string values only). */
export function writeIndented(obj: Record<string, string>): string {
  const lines = Object.entries(obj).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
  return `{\n${lines.join(',\n')}\n}`
}

/** Core's uvTypeName for a parsed JSON value. */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'boolean') return 'bool'
  if (typeof value === 'number') return 'number'
  if (typeof value === 'string') return 'string'
  if (Array.isArray(value)) return 'array'
  return 'object'
}
