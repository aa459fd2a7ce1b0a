import { constants } from 'node:fs'
import { open, stat } from 'node:fs/promises'

/** OpenSSH private keys are a few KiB; RSA 16384 in PEM stays well under this. */
const MAX_KEY_FILE_BYTES = 64 * 1024

/** Why a key file was refused; `message` is the reason shown to the user. */
class KeyFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'KeyFileError'
  }
}

const notRegular = () => new KeyFileError('not a regular file')

/**
 * Reads a private key file: a regular file of at most MAX_KEY_FILE_BYTES. A device (/dev/zero never
 * ends) or a FIFO (blocks until a writer comes) is refused before any read; the open is non-blocking
 * and the type is checked again on the open descriptor, so a path swapped in between is caught too.
 * File-system errors keep their code (ENOENT, EACCES, ...).
 */
export async function readKeyFile(path: string): Promise<string> {
  if (!(await stat(path)).isFile()) throw notRegular()
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0))
  try {
    if (!(await handle.stat()).isFile()) throw notRegular()
    // One byte over the cap tells "exactly the cap" from "larger".
    const buffer = Buffer.alloc(MAX_KEY_FILE_BYTES + 1)
    let length = 0
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null)
      if (bytesRead === 0) break
      length += bytesRead
    }
    if (length > MAX_KEY_FILE_BYTES) throw new KeyFileError(`larger than ${MAX_KEY_FILE_BYTES} bytes`)
    return buffer.subarray(0, length).toString('utf8')
  } finally {
    await handle.close()
  }
}
