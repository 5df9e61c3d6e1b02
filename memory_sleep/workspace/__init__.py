"""Reading and writing the workspace's files: notes, MEMORY.md, the archive, state, the sleep log, the one writer and the lock."""
