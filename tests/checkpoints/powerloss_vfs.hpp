// A SQLite VFS that simulates power loss, as SQLite's own crash tests do: a shim over the
// default VFS that keeps every write to a database, WAL or journal file in memory (the OS page
// cache) and hands it to the real file only when SQLite syncs that file (the disk). At a
// chosen write it "loses power": everything written since each file's last sync is lost
// and, in the torn mode, the write in progress reaches the disk half done. The process then
// ends at once with _exit, so nothing else reaches the file.
//
// Use it in a child process only: install() makes it the default VFS of that process.
#pragma once

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace powerloss {

enum class crash_mode { lose_unsynced, tear_last_write };

inline constexpr int exit_crashed = 10;   // the child lost power at its chosen write
inline constexpr int exit_finished = 11;  // the child ran out of writes before that

// One file as the OS sees it: its content in the page cache, and which ranges of it the
// disk does not have yet.
struct file_state {
  std::string path;
  std::string image;
  std::vector<std::pair<sqlite3_int64, sqlite3_int64>> unsynced;  // [offset, end)
  bool size_unsynced = false;
};

struct shim {
  sqlite3_vfs vfs{};
  sqlite3_vfs* real = nullptr;
  long crash_at = -1;  // the write that loses power; -1: never
  crash_mode mode = crash_mode::lose_unsynced;
  long writes = 0, syncs = 0;
  std::map<std::string, std::unique_ptr<file_state>> files;
};
inline shim the_shim;

struct shim_file {
  sqlite3_file base;
  sqlite3_file* real;
  file_state* state;  // null: a file the shim passes through (temporary files)
};

inline sqlite3_file* real_of(sqlite3_file* f) { return reinterpret_cast<shim_file*>(f)->real; }
inline file_state* state_of(sqlite3_file* f) { return reinterpret_cast<shim_file*>(f)->state; }

// Power is lost: what the disk lacks stays lacking; in the torn mode the first half of the
// write in progress lands.
[[noreturn]] inline void lose_power(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  if (the_shim.mode == crash_mode::tear_last_write && amount > 1) {
    sqlite3_file* real = real_of(f);
    real->pMethods->xWrite(real, data, amount / 2, offset);
  }
  ::_exit(exit_crashed);
}

// The disk catches up with the page cache for one file: writes its unsynced ranges.
inline int sync_state(sqlite3_file* f) {
  file_state* s = state_of(f);
  sqlite3_file* real = real_of(f);
  const auto size = static_cast<sqlite3_int64>(s->image.size());
  for (auto [from, to] : s->unsynced) {
    to = std::min(to, size);
    if (from >= to) continue;
    const int rc = real->pMethods->xWrite(real, s->image.data() + from, static_cast<int>(to - from), from);
    if (rc != SQLITE_OK) return rc;
  }
  sqlite3_int64 real_size = 0;
  real->pMethods->xFileSize(real, &real_size);
  if (s->size_unsynced || real_size > size) {
    const int rc = real->pMethods->xTruncate(real, size);
    if (rc != SQLITE_OK) return rc;
  }
  s->unsynced.clear();
  s->size_unsynced = false;
  return SQLITE_OK;
}

inline int x_close(sqlite3_file* f) {
  sqlite3_file* real = real_of(f);
  const int rc = real->pMethods ? real->pMethods->xClose(real) : SQLITE_OK;
  std::free(real);
  return rc;  // the file's state stays: closing a file does not write the page cache out
}
inline int x_read(sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
  file_state* s = state_of(f);
  if (!s) return real_of(f)->pMethods->xRead(real_of(f), out, amount, offset);
  const auto size = static_cast<sqlite3_int64>(s->image.size());
  const sqlite3_int64 have = std::clamp<sqlite3_int64>(size - offset, 0, amount);
  if (have > 0) std::memcpy(out, s->image.data() + offset, static_cast<std::size_t>(have));
  if (have < amount) {
    std::memset(static_cast<char*>(out) + have, 0, static_cast<std::size_t>(amount - have));
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}
inline int x_write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  file_state* s = state_of(f);
  if (!s) return real_of(f)->pMethods->xWrite(real_of(f), data, amount, offset);
  if (++the_shim.writes == the_shim.crash_at) lose_power(f, data, amount, offset);
  const auto end = offset + amount;
  if (static_cast<sqlite3_int64>(s->image.size()) < end) s->image.resize(static_cast<std::size_t>(end), '\0');
  std::memcpy(s->image.data() + offset, data, static_cast<std::size_t>(amount));
  s->unsynced.emplace_back(offset, end);
  return SQLITE_OK;
}
inline int x_truncate(sqlite3_file* f, sqlite3_int64 size) {
  file_state* s = state_of(f);
  if (!s) return real_of(f)->pMethods->xTruncate(real_of(f), size);
  s->image.resize(static_cast<std::size_t>(size));
  s->size_unsynced = true;
  return SQLITE_OK;
}
inline int x_sync(sqlite3_file* f, int flags) {
  if (!state_of(f)) return real_of(f)->pMethods->xSync(real_of(f), flags);
  ++the_shim.syncs;
  return sync_state(f);  // the real file is the simulated disk: no fsync needed
}
inline int x_file_size(sqlite3_file* f, sqlite3_int64* size) {
  if (file_state* s = state_of(f)) {
    *size = static_cast<sqlite3_int64>(s->image.size());
    return SQLITE_OK;
  }
  return real_of(f)->pMethods->xFileSize(real_of(f), size);
}
inline int x_lock(sqlite3_file* f, int level) { return real_of(f)->pMethods->xLock(real_of(f), level); }
inline int x_unlock(sqlite3_file* f, int level) { return real_of(f)->pMethods->xUnlock(real_of(f), level); }
inline int x_check_reserved(sqlite3_file* f, int* out) {
  return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
}
inline int x_file_control(sqlite3_file* f, int op, void* arg) {
  // A size hint would grow the real file behind the page cache's back.
  if (state_of(f) && op == SQLITE_FCNTL_SIZE_HINT) return SQLITE_OK;
  return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
}
inline int x_sector_size(sqlite3_file* f) { return real_of(f)->pMethods->xSectorSize(real_of(f)); }
inline int x_device(sqlite3_file* f) { return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f)); }
// The WAL index (-shm) is shared memory, rebuilt from the WAL by the next opener after a
// crash: passed through.
inline int x_shm_map(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return real_of(f)->pMethods->xShmMap(real_of(f), page, size, extend, out);
}
inline int x_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
}
inline void x_shm_barrier(sqlite3_file* f) { real_of(f)->pMethods->xShmBarrier(real_of(f)); }
inline int x_shm_unmap(sqlite3_file* f, int del) { return real_of(f)->pMethods->xShmUnmap(real_of(f), del); }

// Version 2: no xFetch, so SQLite never maps the real file around the page cache.
inline const sqlite3_io_methods io_methods = {
    2,         x_close,       x_read,   x_write,       x_truncate,    x_sync,     x_file_size,
    x_lock,    x_unlock,      x_check_reserved, x_file_control, x_sector_size, x_device, x_shm_map,
    x_shm_lock, x_shm_barrier, x_shm_unmap, nullptr, nullptr};

inline int x_open(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* out_flags) {
  auto* sf = reinterpret_cast<shim_file*>(f);
  sf->base.pMethods = nullptr;
  sf->state = nullptr;
  sf->real = static_cast<sqlite3_file*>(std::calloc(1, static_cast<std::size_t>(the_shim.real->szOsFile)));
  if (!sf->real) return SQLITE_NOMEM;
  const int rc = the_shim.real->xOpen(the_shim.real, name, sf->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    std::free(sf->real);
    return rc;
  }
  if (name && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL))) {
    auto& slot = the_shim.files[name];
    if (!slot) {  // first open: the page cache starts as the disk
      slot = std::make_unique<file_state>();
      slot->path = name;
      sqlite3_int64 size = 0;
      sf->real->pMethods->xFileSize(sf->real, &size);
      slot->image.resize(static_cast<std::size_t>(size));
      if (size > 0) sf->real->pMethods->xRead(sf->real, slot->image.data(), static_cast<int>(size), 0);
    }
    sf->state = slot.get();
  }
  sf->base.pMethods = &io_methods;
  return SQLITE_OK;
}
inline int x_delete(sqlite3_vfs*, const char* name, int sync_dir) {
  the_shim.files.erase(name);
  return the_shim.real->xDelete(the_shim.real, name, sync_dir);
}
inline int x_access(sqlite3_vfs*, const char* name, int flags, int* out) {
  if (auto it = the_shim.files.find(name); it != the_shim.files.end() && flags == SQLITE_ACCESS_EXISTS) {
    *out = it->second->image.empty() ? 0 : 1;  // as the default VFS: an empty file does not count
    return SQLITE_OK;
  }
  return the_shim.real->xAccess(the_shim.real, name, flags, out);
}

// Makes the shim the process's default VFS, losing power at write `crash_at` (-1: never).
inline void install(long crash_at, crash_mode mode) {
  shim& s = the_shim;
  s.real = sqlite3_vfs_find(nullptr);
  s.vfs = *s.real;
  s.vfs.pNext = nullptr;
  s.vfs.zName = "sg_powerloss";
  s.vfs.szOsFile = static_cast<int>(sizeof(shim_file));
  s.vfs.xOpen = x_open;
  s.vfs.xDelete = x_delete;
  s.vfs.xAccess = x_access;
  s.crash_at = crash_at;
  s.mode = mode;
  sqlite3_vfs_register(&s.vfs, 1);
}

// A process that ends normally leaves the OS to write its page cache out.
inline void write_everything_out() {
  for (auto& [path, state] : the_shim.files) {
    if (state->unsynced.empty() && !state->size_unsynced) continue;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << state->image;
  }
}

}  // namespace powerloss
