// The system's SQLite: libsqlite3-dev on Linux, the SDK's on Apple platforms.
#include <sqlite3.h>
