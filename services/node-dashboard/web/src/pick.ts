/** The first defined value among dotted paths, e.g. pick(s, 'totals.totalbytesrecv', 'totalbytesrecv'). */
export function pick(source: unknown, ...paths: string[]): any {
  for (const path of paths) {
    let value: any = source
    for (const key of path.split('.')) {
      value = value !== null && typeof value === 'object' ? value[key] : undefined
      if (value === undefined) break
    }
    if (value !== undefined && value !== null) return value
  }
  return undefined
}
