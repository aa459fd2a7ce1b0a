import { createHash } from 'node:crypto'

/** OpenSSH's SHA256 fingerprint of a public host key blob ("SHA256:<unpadded base64>"), as `ssh-keygen -l` prints it. */
export function fingerprintOf(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`
}
