import { readRegularFile } from '../settings/local-file.ts'

/** OpenSSH private keys are a few KiB; RSA 16384 in PEM stays well under this. */
const MAX_KEY_FILE_BYTES = 64 * 1024

/** Reads a private key file (see readRegularFile: regular files of at most 64 KiB only). */
export async function readKeyFile(path: string): Promise<string> {
  return (await readRegularFile(path, MAX_KEY_FILE_BYTES)).toString('utf8')
}
