import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import type { ScratchFile } from './view-index-store.js';

/** A temporary file at `path`, created on the first write (see ScratchFile). */
export function scratchFile(path: string): ScratchFile {
  let fd: number | undefined;
  return {
    write(buf, offset, length, position) {
      fd ??= openSync(path, 'w+');
      return writeSync(fd, buf, offset, length, position);
    },
    read(buf, offset, length, position) {
      if (fd === undefined) return 0;
      return readSync(fd, buf, offset, length, position);
    },
    remove() {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
      rmSync(path, { force: true });
    },
  };
}
