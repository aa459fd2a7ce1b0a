/** How a service's package.json `serve` starts it: the variables it sets, node's flags and the entry file. */
export function serveSettings(serviceDir: string): { env: Record<string, string>; nodeArgs: string[]; entry: string }
