// A SQLite VFS for storage-fault tests (issue 22): "modelgen-faults" wraps the default VFS and refuses
// writes beyond a byte budget with SQLITE_FULL, exactly as SQLite reports a full disk (ENOSPC), so a
// test can fill the "disk" in the middle of a save and give the space back afterwards.
#ifndef MODELGEN_SQLITE_FAULT_INJECTION_H
#define MODELGEN_SQLITE_FAULT_INJECTION_H

/// The name the VFS is registered under.
#define MG_FAULT_VFS_NAME "modelgen-faults"

/// Registers the VFS (once; later calls do nothing). Returns a SQLite result code.
int mg_fault_vfs_register(void);

/// How many more bytes writes may put on the "disk" before they fail with SQLITE_FULL; negative: no limit.
void mg_fault_vfs_set_space(long long bytes);

/// Bytes written through the VFS since it was registered.
long long mg_fault_vfs_bytes_written(void);

/// Writes refused with SQLITE_FULL since the VFS was registered.
long long mg_fault_vfs_refused_writes(void);

#endif
