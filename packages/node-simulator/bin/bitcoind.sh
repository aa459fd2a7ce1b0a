#!/bin/sh
# Stands in for bitcoind on the SSH "node host": runs the node simulator with the same arguments
# (`bitcoind.sh -conf=<file> -daemon`). Absolute paths, because an SSH session starts in $HOME.
here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
exec node --import "$here/../node_modules/tsx/dist/loader.mjs" "$here/../src/bitcoind.ts" "$@"
