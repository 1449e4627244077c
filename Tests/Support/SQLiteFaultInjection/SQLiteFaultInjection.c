// See include/SQLiteFaultInjection.h. Every method forwards to the default VFS and its files; only
// xWrite counts bytes against the budget. The budget is process-wide (one test uses it at a time).
#include "SQLiteFaultInjection.h"
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>

typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real;   // the default VFS's file, allocated right after this struct
} FaultFile;

static sqlite3_vfs *realVFS;
static sqlite3_vfs faultVFS;
static sqlite3_io_methods faultMethods;
static _Atomic long long space = -1;
static _Atomic long long written = 0;
static _Atomic long long refused = 0;

#define REAL(file) (((FaultFile *)(file))->real)

static int faultClose(sqlite3_file *file) {
    int code = REAL(file)->pMethods->xClose(REAL(file));
    file->pMethods = NULL;
    return code;
}
static int faultRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    return REAL(file)->pMethods->xRead(REAL(file), buffer, amount, offset);
}
static int faultWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    for (;;) {
        long long left = atomic_load(&space);
        if (left < 0) break;
        if (left < amount) {
            atomic_fetch_add(&refused, 1);
            return SQLITE_FULL;
        }
        if (atomic_compare_exchange_weak(&space, &left, left - amount)) break;
    }
    atomic_fetch_add(&written, amount);
    return REAL(file)->pMethods->xWrite(REAL(file), buffer, amount, offset);
}
static int faultTruncate(sqlite3_file *file, sqlite3_int64 size) { return REAL(file)->pMethods->xTruncate(REAL(file), size); }
static int faultSync(sqlite3_file *file, int flags) { return REAL(file)->pMethods->xSync(REAL(file), flags); }
static int faultFileSize(sqlite3_file *file, sqlite3_int64 *size) { return REAL(file)->pMethods->xFileSize(REAL(file), size); }
static int faultLock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xLock(REAL(file), lock); }
static int faultUnlock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xUnlock(REAL(file), lock); }
static int faultCheckReservedLock(sqlite3_file *file, int *out) { return REAL(file)->pMethods->xCheckReservedLock(REAL(file), out); }
static int faultFileControl(sqlite3_file *file, int op, void *argument) { return REAL(file)->pMethods->xFileControl(REAL(file), op, argument); }
static int faultSectorSize(sqlite3_file *file) { return REAL(file)->pMethods->xSectorSize(REAL(file)); }
static int faultDeviceCharacteristics(sqlite3_file *file) { return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file)); }
static int faultShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **out) {
    return REAL(file)->pMethods->xShmMap(REAL(file), region, size, extend, out);
}
static int faultShmLock(sqlite3_file *file, int offset, int n, int flags) { return REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags); }
static void faultShmBarrier(sqlite3_file *file) { REAL(file)->pMethods->xShmBarrier(REAL(file)); }
static int faultShmUnmap(sqlite3_file *file, int deleteFlag) { return REAL(file)->pMethods->xShmUnmap(REAL(file), deleteFlag); }
static int faultFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    return REAL(file)->pMethods->xFetch(REAL(file), offset, amount, out);
}
static int faultUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) { return REAL(file)->pMethods->xUnfetch(REAL(file), offset, pointer); }

static int faultOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *fault = (FaultFile *)file;
    fault->real = (sqlite3_file *)&fault[1];
    int code = realVFS->xOpen(realVFS, name, fault->real, flags, outFlags);
    // SQLite calls xClose only when pMethods is set: set it only when the real file opened.
    file->pMethods = fault->real->pMethods ? &faultMethods : NULL;
    return code;
}
static int faultDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) { (void)vfs; return realVFS->xDelete(realVFS, name, syncDirectory); }
static int faultAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) { (void)vfs; return realVFS->xAccess(realVFS, name, flags, out); }
static int faultFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) { (void)vfs; return realVFS->xFullPathname(realVFS, name, size, out); }
static void *faultDlOpen(sqlite3_vfs *vfs, const char *name) { (void)vfs; return realVFS->xDlOpen(realVFS, name); }
static void faultDlError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; realVFS->xDlError(realVFS, size, out); }
static void (*faultDlSym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) { (void)vfs; return realVFS->xDlSym(realVFS, library, symbol); }
static void faultDlClose(sqlite3_vfs *vfs, void *library) { (void)vfs; realVFS->xDlClose(realVFS, library); }
static int faultRandomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return realVFS->xRandomness(realVFS, size, out); }
static int faultSleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return realVFS->xSleep(realVFS, microseconds); }
static int faultCurrentTime(sqlite3_vfs *vfs, double *out) { (void)vfs; return realVFS->xCurrentTime(realVFS, out); }
static int faultGetLastError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return realVFS->xGetLastError(realVFS, size, out); }
static int faultCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) { (void)vfs; return realVFS->xCurrentTimeInt64(realVFS, out); }

int mg_fault_vfs_register(void) {
    if (sqlite3_vfs_find(MG_FAULT_VFS_NAME)) return SQLITE_OK;
    realVFS = sqlite3_vfs_find(NULL);
    if (!realVFS) return SQLITE_ERROR;
    faultMethods = (sqlite3_io_methods){
        .iVersion = 3, .xClose = faultClose, .xRead = faultRead, .xWrite = faultWrite, .xTruncate = faultTruncate,
        .xSync = faultSync, .xFileSize = faultFileSize, .xLock = faultLock, .xUnlock = faultUnlock,
        .xCheckReservedLock = faultCheckReservedLock, .xFileControl = faultFileControl, .xSectorSize = faultSectorSize,
        .xDeviceCharacteristics = faultDeviceCharacteristics, .xShmMap = faultShmMap, .xShmLock = faultShmLock,
        .xShmBarrier = faultShmBarrier, .xShmUnmap = faultShmUnmap, .xFetch = faultFetch, .xUnfetch = faultUnfetch,
    };
    faultVFS = (sqlite3_vfs){
        .iVersion = 2, .szOsFile = (int)sizeof(FaultFile) + realVFS->szOsFile, .mxPathname = realVFS->mxPathname,
        .zName = MG_FAULT_VFS_NAME, .xOpen = faultOpen, .xDelete = faultDelete, .xAccess = faultAccess,
        .xFullPathname = faultFullPathname, .xDlOpen = faultDlOpen, .xDlError = faultDlError, .xDlSym = faultDlSym,
        .xDlClose = faultDlClose, .xRandomness = faultRandomness, .xSleep = faultSleep, .xCurrentTime = faultCurrentTime,
        .xGetLastError = faultGetLastError, .xCurrentTimeInt64 = faultCurrentTimeInt64,
    };
    return sqlite3_vfs_register(&faultVFS, 0);
}

void mg_fault_vfs_set_space(long long bytes) { atomic_store(&space, bytes); }
long long mg_fault_vfs_bytes_written(void) { return atomic_load(&written); }
long long mg_fault_vfs_refused_writes(void) { return atomic_load(&refused); }
